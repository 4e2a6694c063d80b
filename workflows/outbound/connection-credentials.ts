// A connection's credentials for one request: the headers its kind adds
// (flow/connection-kinds/), with the worker's I/O a kind may need
// handed in: the token cache and the guarded client for a token endpoint. The
// engine hands the connection (with its secret) to the activity at run time;
// the headers exist only in this request's memory.
import type { ResolvedConnection } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { AuthenticationFailure, type AuthenticationServices } from '../../flow/connection-kinds/connection-kind.ts';
import { connectionKind } from '../../flow/connection-kinds/connection-kind-registry.ts';
import type { EgressPolicy } from '../../flow/egress-policy.ts';
import { sendGuarded, type GuardedLimits } from './guarded-http.ts';
import type { OAuthTokenCache } from './oauth-token-cache.ts';
import { OutboundFailed, OutboundRefused } from './outbound-errors.ts';

export interface SigningContext {
  company: string;
  tokens: OAuthTokenCache;
  policy: EgressPolicy;
  limits: GuardedLimits;
}

/** Lower-case header name → value. */
export async function credentialHeaders(
  connection: ResolvedConnection,
  context: SigningContext,
): Promise<Record<string, string>> {
  const settings = connection.settings!;
  const kind = connectionKind(settings.type);
  if (!kind)
    throw new OutboundRefused(
      `connection "${connection.name}" has a type this worker does not know`,
      'ConnectionInvalid',
    );
  const services: AuthenticationServices = {
    cachedToken: (fetch) => context.tokens.token(tokenKey(context.company, connection), fetch),
    send: (request) => sendGuarded(request, context.policy, { ...context.limits, maxRedirects: 0 }),
  };
  try {
    return await kind.authenticate({ name: connection.name, settings, secret: connection.secret }, services);
  } catch (error) {
    if (!(error instanceof AuthenticationFailure)) throw error;
    throw error.retryable
      ? new OutboundFailed(error.message, error.type)
      : new OutboundRefused(error.message, error.type);
  }
}

/** Forgets the connection's cached token after the resource refused it (401), so the next attempt or execution fetches a fresh one. Kinds without a token have none to forget. */
export function forgetToken(tokens: OAuthTokenCache, company: string, connection: ResolvedConnection): void {
  tokens.invalidate(tokenKey(company, connection));
}

/** The version is part of the key: a changed connection never uses the token of its former settings. */
function tokenKey(company: string, connection: ResolvedConnection): string {
  return `${company}\u0000${connection.name}\u0000${connection.version}`;
}
