// A refusal's reason, handed back to the facade beside the code: the caller of the
// webhook routes only ever sees `Unauthorized` (or the 403), but the facade's
// delivery log records why (facade/delivery-reasons.ts). Only WebhookService
// uses this: its callers are invoke accounts (the facade), which also forward
// callers' credentials, so the reason tells them nothing they could not learn.
import { Code, ConnectError } from '@connectrpc/connect';
import { REFUSAL_REASON_METADATA } from '../../../common/rpc-metadata.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../../errors.ts';

/** The same refusal as a ConnectError carrying its reason as metadata; any other error as it is. */
export function withRefusalReason(error: unknown): unknown {
  if (!(error instanceof UnauthenticatedError || error instanceof PermissionDeniedError) || !error.reason) return error;
  const code = error instanceof UnauthenticatedError ? Code.Unauthenticated : Code.PermissionDenied;
  return new ConnectError(error.message, code, { [REFUSAL_REASON_METADATA]: error.reason });
}
