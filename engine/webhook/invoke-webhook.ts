// Spec §1 steps 2-6 for one call: authenticate the caller, look the flow up,
// check the secret, check the permission, start the execution. Nothing starts
// unless every check passed; the secret never leaves this function.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { InvokeRequest } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { resolveTrigger, type FlowLimits } from '../../workflows/shared/index.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../common/json-depth.ts';
import { InvalidArgumentError, PermissionDeniedError, UnauthenticatedError } from '../errors.ts';
import { matchesHash } from '../security/credentials.ts';
import type { ExecutionStarter, StartedExecution } from '../temporal/execution-starter.ts';
import { authenticateCaller } from './caller-authentication.ts';
import { actsForCompany, type ServiceAccountIdentity } from '../security/service-account-tokens.ts';
import type { WebhookLimits } from '../limits/webhook-limits.ts';
import type { CallerDirectory } from './caller-directory.ts';
import { missingPermissionSet } from './permissions.ts';
import type { PublishedFlowLookup } from './published-flow-lookup.ts';
import { executionRequest, startExecution } from './execution-request.ts';
import { annotateActiveSpan } from '../../common/tracing/span-attributes.ts';

export interface InvokeDeps {
  orm: MikroORM;
  publishedFlows: PublishedFlowLookup;
  callers: CallerDirectory;
  limits: WebhookLimits;
  starter: ExecutionStarter;
  useSearchAttributes: () => boolean;
  flowLimits: FlowLimits;
  /** Keys the execution grants handed to each execution (security/execution-grants.ts). */
  grantKey: Buffer;
  /** Keys the digests in idempotent execution ids and update ids (idempotency.ts). */
  idempotencyKey: Buffer;
}

/** Told which published flow a call named, once the lookup found it (metrics label refusals after that per flow). */
export interface InvokeObserver {
  flowResolved(company: string, activity: string, responseMode: string): void;
}

export async function invokeWebhook(deps: InvokeDeps, request: InvokeRequest, account: ServiceAccountIdentity, observer?: InvokeObserver): Promise<StartedExecution> {
  checkShape(request);
  const em = deps.orm.em.fork();
  const caller = await authenticateCaller(deps.callers, em, request.caller, new Date(), account);
  deps.limits.admitCaller(caller.label);
  const published = await deps.publishedFlows.find(em, request.company, request.activity);
  const definition = published.flowVersion.definition;
  const trigger = resolveTrigger(definition.trigger?.webhook ?? {});
  observer?.flowResolved(published.company.name, trigger.activity, trigger.responseMode);
  if (!matchesHash(request.secret, published.flow.secretHash)) throw new UnauthenticatedError('Unauthorized', 'secret_mismatch');
  // Like a permission set, checked after the secret: the account's companies bound the facade and internal services alike.
  if (!actsForCompany(account, published.company.id)) {
    throw new PermissionDeniedError(`Service account "${account.name}" may not call flows of company "${published.company.name}"`, { reason: 'service_account_company' });
  }
  const missing = missingPermissionSet(caller, published.company.id);
  if (missing) {
    throw new PermissionDeniedError(`Caller "${caller.name}" lacks the permission set "${missing}" for company "${published.company.name}"`, { reason: 'missing_permission_set', permissionSet: missing });
  }

  annotateActiveSpan({ 'flowhook.flow': published.flow.name, 'flowhook.flow_version': published.flowVersion.version, 'flowhook.response_mode': trigger.responseMode });
  deps.limits.admitActivity(published.company.name, trigger.activity);
  const execution = executionRequest(deps, published, trigger, { caller: caller.label, payloadJson: request.payloadJson, idempotencyKey: request.idempotencyKey });
  return startExecution(deps, execution, trigger.responseMode);
}

function checkShape(request: InvokeRequest): void {
  if (!request.company) throw new InvalidArgumentError('company is required');
  if (!request.activity) throw new InvalidArgumentError('activity is required');
  if (!request.secret) throw new InvalidArgumentError('secret is required');
  let payload: unknown;
  try {
    payload = JSON.parse(request.payloadJson);
  } catch {
    throw new InvalidArgumentError('payload must be JSON text');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new InvalidArgumentError('payload must be a JSON object');
  // The facade refuses such bodies already; callers of the engine's RPC directly get the same rule.
  if (nestsDeeperThan(request.payloadJson, MAX_JSON_DEPTH)) throw new InvalidArgumentError(`payload nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
}
