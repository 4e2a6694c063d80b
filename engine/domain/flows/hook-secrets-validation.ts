// What a hook secret may look like, checked before it is stored. A secret that
// is stored wrong fails silently later: every request of the provider is
// refused 401 and nobody sees why. So the common paste mistakes (a trailing
// newline, surrounding spaces, a truncated Standard Webhooks secret) are
// refused here, with a message that never quotes the secret itself.
import { randomBytes } from 'node:crypto';
import { DIRECT_SCHEMES, type DirectScheme } from '../../../flow/verification-schemes/scheme-registry.ts';
import { hasControlCharacter } from '../../../common/control-characters.ts';

/** Longer than any provider's secret (Standard Webhooks allows 64 bytes, ~94 characters with prefix). */
export const MAX_HOOK_SECRET_LENGTH = 1024;
/** 0..7 days: a longer overlap keeps a possibly leaked secret valid for too long. */
export const MAX_HOOK_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600;
/** Standard Webhooks: secrets are 24..64 random bytes; v1a public keys are Ed25519 keys (32 bytes). */
const STANDARD_SECRET_BYTES = { min: 24, max: 64 } as const;
const ED25519_PUBLIC_KEY_BYTES = 32;

/**
 * Problems with a secret for a route of this scheme (undefined: the flow is
 * not published with a direct route yet, so only the scheme-free rules apply).
 */
export function hookSecretProblems(secret: string, scheme: DirectScheme | undefined): string[] {
  if (secret === '') return ['the secret is empty'];
  if (secret.length > MAX_HOOK_SECRET_LENGTH) return [`the secret is longer than ${MAX_HOOK_SECRET_LENGTH} characters`];
  const problems: string[] = [];
  if (secret.trim() !== secret)
    problems.push('the secret starts or ends with white space (a stray newline or space from copying it?)');
  if (hasControlCharacter(secret))
    problems.push('the secret contains control characters (a line break in the middle?)');
  if (problems.length === 0 && scheme === 'standardWebhooks') problems.push(...standardWebhooksProblems(secret));
  return problems;
}

/** Whether `--generate` makes sense for this scheme (not when the provider issues the secret); a message saying where the secret comes from otherwise. */
export function generateProblem(scheme: DirectScheme | undefined): string | undefined {
  if (scheme === undefined || !DIRECT_SCHEMES[scheme].secretIssuedByProvider) return undefined;
  return `${scheme} issues the signing secret itself (see its webhook settings); set that one from stdin instead of generating one`;
}

/** A Standard Webhooks v1 secret: whsec_ and base64 of 32 random bytes. */
export function generateHookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function standardWebhooksProblems(secret: string): string[] {
  if (secret.startsWith('whpk_')) {
    const key = strictBase64(secret.slice('whpk_'.length));
    if (key?.length !== ED25519_PUBLIC_KEY_BYTES)
      return [`a whpk_ secret is an Ed25519 public key: whpk_ and base64 of ${ED25519_PUBLIC_KEY_BYTES} bytes`];
    return [];
  }
  // Senders show the secret with its whsec_ prefix; a bare base64 secret is accepted as well (the libraries do).
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const bytes = strictBase64(body);
  if (!bytes)
    return [
      'a Standard Webhooks secret is whsec_ and base64 (or whpk_ and base64 for a v1a public key); this one is not valid base64',
    ];
  if (bytes.length < STANDARD_SECRET_BYTES.min || bytes.length > STANDARD_SECRET_BYTES.max) {
    return [
      `a Standard Webhooks secret decodes to ${STANDARD_SECRET_BYTES.min}..${STANDARD_SECRET_BYTES.max} bytes; this one has ${bytes.length} (cut off when copied?)`,
    ];
  }
  return [];
}

/** The bytes of canonical, padded base64, or undefined (Node's decoder silently skips what it cannot read). */
function strictBase64(text: string): Buffer | undefined {
  if (text === '' || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}
