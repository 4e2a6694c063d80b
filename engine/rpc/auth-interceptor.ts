// Who may call which engine service: FlowAdminService needs the admin token,
// WebhookService the service token (when one is configured). Tokens travel as
// `authorization: Bearer …` and are compared in constant time.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { tokenMatches } from '../security/credentials.ts';

export interface ServiceTokens {
  adminToken: string;
  serviceToken?: string;
}

export function authInterceptor(tokens: ServiceTokens, logger: Logger): Interceptor {
  const required: Record<string, string | undefined> = {
    [FlowAdminService.typeName]: tokens.adminToken,
    [WebhookService.typeName]: tokens.serviceToken,
  };
  return (next) => async (request) => {
    const typeName = request.service.typeName;
    const expected = typeName in required ? required[typeName] : tokens.adminToken;
    if (expected !== undefined) {
      const header = request.header.get('authorization') ?? '';
      const supplied = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!tokenMatches(supplied, expected)) {
        logger.warn({ method: `${typeName}/${request.method.name}` }, 'rejected RPC without a valid token');
        throw new ConnectError('a valid bearer token is required', Code.Unauthenticated);
      }
    }
    return next(request);
  };
}
