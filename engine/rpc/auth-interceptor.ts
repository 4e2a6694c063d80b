// Who may call which engine service: the admin services need the admin token,
// WebhookService, RecordService and OutboundService the service token (facade,
// worker and internal callers). Only an engine started with FLOWHOOK_ENGINE_INSECURE=true
// has no service token, and then WebhookService and RecordService are open;
// OutboundService hands out connection secrets, so it is never open. Tokens travel as
// `authorization: Bearer …` and are compared in constant time; a rejected
// call is logged by method only, never with what it sent. A rejected webhook
// call is a refused call like any other, so its line is `call refused` with a
// reason: through the facade it is a 401 nothing else logs.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { OutboundService } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { logRefusedCall } from '../../common/refusal-reasons.ts';
import { matchesHash, sha256Hex } from '../security/credentials.ts';

export interface ServiceTokens {
  adminToken: string;
  /** Undefined only in the explicitly insecure mode. */
  serviceToken?: string;
}

export function authInterceptor(tokens: ServiceTokens, logger: Logger): Interceptor {
  const serviceTokenServices = new Set([WebhookService.typeName, RecordService.typeName, OutboundService.typeName]);
  // Hashed once here, not on every call; the supplied token is hashed and compared in constant time.
  const serviceTokenHash = tokens.serviceToken === undefined ? undefined : sha256Hex(tokens.serviceToken);
  const adminTokenHash = sha256Hex(tokens.adminToken);
  return (next) => async (request) => {
    const typeName = request.service.typeName;
    // Anything not listed is an admin service: a new service is closed until someone opens it.
    const expectedHash = serviceTokenServices.has(typeName) ? serviceTokenHash : adminTokenHash;
    if (expectedHash === undefined && typeName === OutboundService.typeName) {
      throw new ConnectError('connections need FLOWHOOK_SERVICE_TOKEN: the engine does not hand secrets out without one', Code.FailedPrecondition);
    }
    if (expectedHash !== undefined) {
      const header = request.header.get('authorization') ?? '';
      const supplied = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!matchesHash(supplied, expectedHash)) {
        if (typeName === WebhookService.typeName) logRefusedCall(logger, { reason: header === '' ? 'service_token_missing' : 'service_token_invalid' });
        else logger.warn({ method: `${typeName}/${request.method.name}`, hadAuthorization: header !== '' }, 'rejected RPC without a valid token');
        throw new ConnectError('a valid bearer token is required', Code.Unauthenticated);
      }
    }
    return next(request);
  };
}
