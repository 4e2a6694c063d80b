// The caller's credentials, from the Authorization header, before the body is
// read or the engine is asked. Each supported scheme has a verifier; a request
// whose scheme has none, or whose credentials its verifier refuses, is answered
// 401 without an engine call. Basic (user name and access key, passed on for
// the engine to check against its stored hash) is here; Bearer (an OAuth 2.0
// client-credentials token, verified here) is in oauth/. A refusal carries its
// reason to error-mapping.ts, which logs it once.
import { exceedsNameLimit } from '../common/name-limits.ts';
import type { RefusedCall } from '../common/refusal-reasons.ts';
import type { CallerInit, FacadeMiddleware } from './facade-context.ts';
import { parseBasicAuthorization } from './basic-auth.ts';
import { UnauthorizedError } from './http-errors.ts';

/** The protection space every challenge names: one, as Basic and Bearer guard the same endpoint. */
export const REALM = 'flowhook';

/** Why credentials were refused, and the non-secret names known at that point. */
export type CredentialRefusal = Pick<RefusedCall, 'reason' | 'clientId' | 'issuer' | 'tokenRule'>;

/** A verifier's answer: the caller to pass on, or why the credentials are refused. */
export type Verification = { caller: CallerInit } | { refused: CredentialRefusal };

export interface CallerVerifier {
  /** The Authorization scheme handled, lower case (`basic`, `bearer`). */
  scheme: string;
  /** What a 401 offers for this scheme in `WWW-Authenticate` (RFC 7235 §4.1; Bearer: RFC 6750 §3). */
  challenge: string;
  verify(authorization: string): Verification | Promise<Verification>;
}

/** A 401 the facade decided itself; the caller sees only `Unauthorized`, the log line the refusal. */
export class CallerRefusedError extends UnauthorizedError {
  readonly refusal: CredentialRefusal;

  constructor(refusal: CredentialRefusal) {
    super();
    this.refusal = refusal;
  }
}

/** Basic user name + access key, passed on for the engine to verify. */
export const basicVerifier: CallerVerifier = {
  scheme: 'basic',
  challenge: `Basic realm="${REALM}"`,
  verify(authorization) {
    const credentials = parseBasicAuthorization(authorization);
    if (!credentials) return { refused: { reason: 'malformed_credentials' } };
    // No service user has a longer name: refused here, so such a name never reaches the engine or its caches.
    if (exceedsNameLimit('user', credentials.userName)) return { refused: { reason: 'malformed_credentials' } };
    return { caller: { identity: { case: 'basic', value: credentials } } };
  },
};

/**
 * The `WWW-Authenticate` value of every 401: the challenges of exactly the schemes this facade
 * verifies, so a client is never told to send credentials it would be refused for (a Bearer-only
 * facade does not ask for Basic). Bearer, the recommended path (no shared long-lived key), comes first.
 */
export function authenticationChallenge(verifiers: readonly CallerVerifier[]): string {
  const preferred = (verifier: CallerVerifier) => (verifier.scheme === 'bearer' ? 0 : 1);
  return [...verifiers]
    .sort((a, b) => preferred(a) - preferred(b))
    .map((verifier) => verifier.challenge)
    .join(', ');
}

export function verifyCallerCredentials(verifiers: readonly CallerVerifier[]): FacadeMiddleware {
  const byScheme = new Map(verifiers.map((verifier) => [verifier.scheme, verifier]));
  return async function verifyCredentials(ctx, next) {
    const verification = await verifyAuthorization(byScheme, ctx.get('authorization'));
    if ('refused' in verification) throw new CallerRefusedError(verification.refused);
    ctx.state.caller = verification.caller;
    await next();
  };
}

function verifyAuthorization(
  byScheme: ReadonlyMap<string, CallerVerifier>,
  authorization: string,
): Verification | Promise<Verification> {
  if (!authorization) return { refused: { reason: 'missing_credentials' } };
  const scheme = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?:[ \t]|$)/.exec(authorization)?.[1]?.toLowerCase();
  if (!scheme) return { refused: { reason: 'malformed_credentials' } };
  const verifier = byScheme.get(scheme);
  if (!verifier) return { refused: { reason: 'unsupported_scheme' } };
  return verifier.verify(authorization);
}
