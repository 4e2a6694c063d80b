// Who may call which engine service: the admin services need the admin token,
// WebhookService and RecordService the service token (facade, worker and
// internal callers). Only an engine started with FLOWHOOK_ENGINE_INSECURE=true
// has no service token, and then those two are open. Tokens travel as
// `authorization: Bearer …` and are compared in constant time; a rejected
// call is logged by method only, never with what it sent.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { tokenMatches } from '../security/credentials.ts';

export interface ServiceTokens {
  adminToken: string;
  /** Undefined only in the explicitly insecure mode. */
  serviceToken?: string;
}

export function authInterceptor(tokens: ServiceTokens, logger: Logger): Interceptor {
  const serviceTokenServices = new Set([WebhookService.typeName, RecordService.typeName]);
  return (next) => async (request) => {
    const typeName = request.service.typeName;
    // Anything not listed is an admin service: a new service is closed until someone opens it.
    const expected = serviceTokenServices.has(typeName) ? tokens.serviceToken : tokens.adminToken;
    if (expected !== undefined) {
      const header = request.header.get('authorization') ?? '';
      const supplied = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!tokenMatches(supplied, expected)) {
        logger.warn({ method: `${typeName}/${request.method.name}`, hadAuthorization: header !== '' }, 'rejected RPC without a valid token');
        throw new ConnectError('a valid bearer token is required', Code.Unauthenticated);
      }
    }
    return next(request);
  };
}
