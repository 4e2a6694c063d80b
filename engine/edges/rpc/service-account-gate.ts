// The engine's front door: every RPC names a service account by its bearer
// token (or, with mutual TLS, by its client certificate's CN), and the account's scope must be the one the service needs — checked
// on the request's headers alone, before the body is read or decompressed, so
// an unauthenticated caller cannot make the engine buffer anything. The
// account travels on to the services as a Connect context value.
//
//   invoke   WebhookService (for the account's companies), DeliveryLogService (the facade's delivery reports)
//   records  RecordService, OutboundService, CallbackService (for executions the engine started),
//            AlertCheckService (the alert workflows' evaluations and notifications),
//            HousekeepingService (the retention workflow's purge rounds)
//   admin    every admin service (flows, apps, users, connections, hook secrets, executions, accounts)
//
// The gRPC health and reflection services are open: they reveal no data (the
// protos are public) and load balancers and grpcurl call them without a token.
import type { Http2ServerRequest } from 'node:http2';
import type { ContextValues } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { AlertCheckService } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { CallbackService } from '../../../proto/gen/flowhook/engine/v1/callback_service_pb.js';
import { OutboundService } from '../../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { RecordService } from '../../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { WebhookService } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { DeliveryLogService } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { HousekeepingService } from '../../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { logRefusedCall } from '../../../common/refusal-reasons.ts';
import { REQUEST_ID_HEADER } from '../../../common/rpc-metadata.ts';
import { runInRequestScope, SAFE_REQUEST_ID } from '../../../common/request-scope.ts';
import type { ServiceAccountIdentity, ServiceAccountScope } from '../../domain/callers/service-account-tokens.ts';
import { refuseRpc } from './rpc-refusal.ts';
import type { NodeHandler } from './early-answer-reset.ts';
import { HEALTH_SERVICE_NAME } from './grpc-health.ts';
import { REFLECTION_V1_SERVICE_NAME, REFLECTION_V1ALPHA_SERVICE_NAME } from './grpc-reflection.ts';
import { clientIdentityOf } from './engine-tls.ts';
import type { ServiceAccountDirectory } from '../../domain/callers/service-account-directory.ts';
import { serviceAccountValues } from '../../domain/callers/call-context.ts';

const SCOPE_OF_SERVICE = new Map<string, ServiceAccountScope>([
  [WebhookService.typeName, 'invoke'],
  // The facade reports what it answered on the webhook routes (engine/domain/deliveries/).
  [DeliveryLogService.typeName, 'invoke'],
  [RecordService.typeName, 'records'],
  [OutboundService.typeName, 'records'],
  [CallbackService.typeName, 'records'],
  // The retention workflow's purge round: it names no subject and changes no setting.
  [HousekeepingService.typeName, 'records'],
  [AlertCheckService.typeName, 'records'],
]);

export const OPEN_SERVICES = new Set([
  HEALTH_SERVICE_NAME,
  REFLECTION_V1_SERVICE_NAME,
  REFLECTION_V1ALPHA_SERVICE_NAME,
]);

/** The scope a service needs; anything not listed is an admin service, so a new service is closed until someone opens it. */
export function scopeOfService(typeName: string): ServiceAccountScope {
  return SCOPE_OF_SERVICE.get(typeName) ?? 'admin';
}

const accounts = new WeakMap<Http2ServerRequest, ServiceAccountIdentity>();

/** connectNodeAdapter's `contextValues`: hands the gate's verdict to the services. */
export function serviceAccountContext(req: unknown): ContextValues {
  return serviceAccountValues(accounts.get(req as Http2ServerRequest));
}

export function serviceAccountGate(
  handler: NodeHandler,
  directory: ServiceAccountDirectory,
  logger: Logger,
): NodeHandler {
  return (req, res) => {
    const service = serviceOfPath(req.url);
    if (service === undefined || OPEN_SERVICES.has(service)) {
      handler(req, res);
      return;
    }
    void admit(req, service, directory).then(
      (verdict) => {
        if ('account' in verdict) {
          accounts.set(req, verdict.account);
          handler(req, res);
          return;
        }
        // The body (and the request id in it) is never read for a refused call; a caller that wants
        // its refusals correlated sends the id as a header too, as the facade does.
        const requestId = String(req.headers[REQUEST_ID_HEADER] ?? '');
        if (SAFE_REQUEST_ID.test(requestId))
          runInRequestScope(requestId, () => logRefusal(logger, service, req.url, verdict));
        else logRefusal(logger, service, req.url, verdict);
        refuseRpc(req, verdict.code, verdict.message);
      },
      (error: unknown) => {
        // The directory could not be read (PostgreSQL down): unavailable, not a refusal.
        logger.error(
          { reason: error instanceof Error ? error.message : String(error), method: req.url },
          'service account lookup failed',
        );
        refuseRpc(req, 'unavailable', 'the engine cannot check its service accounts right now');
      },
    );
  };
}

type Verdict =
  | { account: ServiceAccountIdentity }
  | {
      code: 'unauthenticated' | 'permission_denied';
      message: string;
      reason: 'service_token_missing' | 'service_token_invalid' | 'service_account_disabled' | 'service_account_scope';
      name?: string;
    };

async function admit(req: Http2ServerRequest, service: string, directory: ServiceAccountDirectory): Promise<Verdict> {
  const header = String(req.headers.authorization ?? '');
  // Mutual TLS: the verified certificate names the account (its CN); a token, if sent too, must be that account's.
  const certified = clientIdentityOf(req)?.commonName;
  if (header === '' && certified === undefined)
    return {
      code: 'unauthenticated',
      message: 'a service account token is required (authorization: Bearer fhsa_…)',
      reason: 'service_token_missing',
    };
  const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  const found = header === '' ? await directory.lookupByName(certified!) : await directory.lookup(token);
  if (!('refused' in found) && certified !== undefined && found.account.name !== certified) {
    return {
      code: 'permission_denied',
      message: `the client certificate names service account "${certified}", the token another one`,
      reason: 'service_account_scope',
      name: found.account.name,
    };
  }
  if ('refused' in found)
    return {
      code: 'unauthenticated',
      message: 'a valid service account token is required',
      reason: found.refused,
      name: found.name,
    };
  const needed = scopeOfService(service);
  if (found.account.scope !== needed) {
    return {
      code: 'permission_denied',
      message: `${service} needs a service account of scope "${needed}"; "${found.account.name}" has scope "${found.account.scope}"`,
      reason: 'service_account_scope',
      name: found.account.name,
    };
  }
  return { account: found.account };
}

function logRefusal(
  logger: Logger,
  service: string,
  method: string,
  verdict: Exclude<Verdict, { account: ServiceAccountIdentity }>,
): void {
  // A refused webhook call is a refused call like any other (one `call refused` line with a reason).
  if (service === WebhookService.typeName)
    logRefusedCall(logger, { reason: verdict.reason, serviceAccount: verdict.name });
  else logger.warn({ method, reason: verdict.reason, serviceAccount: verdict.name }, 'rejected RPC');
}

/** `/flowhook.engine.v1.WebhookService/Invoke` → `flowhook.engine.v1.WebhookService`. */
function serviceOfPath(url: string): string | undefined {
  const match = /^\/([A-Za-z0-9_.]+)\/[A-Za-z0-9_]+(?:\?|$)/.exec(url);
  return match?.[1];
}
