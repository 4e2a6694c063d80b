// A refusal's reason, handed back to the facade beside the code: the caller of the
// webhook routes only ever sees `Unauthorized` (or the 403), but the facade's
// delivery log records why (facade/delivery-reasons.ts), and the facade never
// relays engine metadata to its caller. Only an account that forwards callers
// (the facade's) gets it: it holds the callers' credentials already. Any other
// gRPC caller — an internal service with an invoke account — gets the bare
// refusal, as before: the reason would tell it which users or companies exist.
import { Code, ConnectError } from '@connectrpc/connect';
import { REFUSAL_REASON_METADATA } from '../../../common/rpc-metadata.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../../errors.ts';
import type { ServiceAccountIdentity } from '../../domain/callers/service-account-tokens.ts';

/** For the facade's account, the same refusal as a ConnectError carrying its reason as metadata; anything else as it is. */
export function withRefusalReason(error: unknown, account: Pick<ServiceAccountIdentity, 'forwardsCallers'>): unknown {
  if (!account.forwardsCallers) return error;
  if (!(error instanceof UnauthenticatedError || error instanceof PermissionDeniedError) || !error.reason) return error;
  const code = error instanceof UnauthenticatedError ? Code.Unauthenticated : Code.PermissionDenied;
  return new ConnectError(error.message, code, { [REFUSAL_REASON_METADATA]: error.reason });
}
