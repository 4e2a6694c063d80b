// Operators who sign in to a Temporal UI with the organisation's identity
// provider: with the UI's "pass access token" codec setting, the UI forwards
// the operator's access token (a JWT) as `Authorization: Bearer …`. It is
// accepted when it verifies against the configured issuer's keys (signature,
// algorithm, issuer, audience, expiry) and its group claim names the operator
// group. Which check failed is not told to the caller; the engine logs it at
// warn, without the token.
import type { JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { isKeySetUnreachable } from '../../../common/issuer-keys.ts';
import { issuerTokenCheck } from '../http/issuer-tokens.ts';
import type { CodecOAuthSettings } from './codec-config.ts';
import type { CodecOperator } from './codec-sessions.ts';

export type OperatorTokenVerifier = (token: string) => Promise<CodecOperator | undefined>;

export function operatorTokenVerifier(settings: CodecOAuthSettings, logger: Logger): OperatorTokenVerifier {
  const verify = issuerTokenCheck(settings, settings.audiences, ['exp']);
  return async (token) => {
    let payload: JWTPayload;
    try {
      payload = await verify(token);
    } catch (error) {
      const reason = error instanceof Error ? ((error as { code?: string }).code ?? error.name) : 'invalid';
      if (isKeySetUnreachable(error))
        logger.warn({ issuer: settings.issuer, reason }, "codec server: the identity provider's keys are unreachable");
      else logger.warn({ issuer: settings.issuer, reason }, 'codec server: operator token refused');
      return undefined;
    }
    const name =
      typeof payload.preferred_username === 'string'
        ? payload.preferred_username
        : typeof payload.sub === 'string'
          ? payload.sub
          : 'unnamed operator';
    if (!claimNames(payload[settings.groupClaim], settings.group)) {
      logger.warn(
        { issuer: settings.issuer, operator: name, claim: settings.groupClaim },
        'codec server: operator token without the operator group',
      );
      return undefined;
    }
    return { name, via: 'oauth' };
  };
}

/** Groups come as an array (Entra `groups`/`roles`, Keycloak) or a space/comma separated string (some `scope`-like claims). */
function claimNames(claim: unknown, group: string): boolean {
  if (Array.isArray(claim)) return claim.includes(group);
  if (typeof claim === 'string') return claim.split(/[\s,]+/).includes(group);
  return false;
}

/** Three base64url segments: a JWT, as opposed to a service-account token or FLOWHOOK_ADMIN_TOKEN. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}
