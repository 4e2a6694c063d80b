// One call, in order: the caller, flow, secret and permission
// checks (flow-call-authorization.ts), then the execution starts. Nothing
// starts unless every check passed.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { InvokeRequest } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { FlowLimits } from '../../../flow/index.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../common/json-depth.ts';
import { InvalidArgumentError } from '../../errors.ts';
import type { ExecutionStarter, StartedExecution } from '../executions/execution-starter.ts';
import type { CallCollector } from '../flow-control/call-collector.ts';
import type { ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import type { WebhookLimits } from '../limits/webhook-limits.ts';
import type { CallerDirectory } from '../callers/caller-directory.ts';
import type { PublishedFlowLookup } from '../flows/published-flow-lookup.ts';
import { authorizeFlowCall, type InvokeObserver } from './flow-call-authorization.ts';
import { executionRequest, startExecution, type FlowControlObserver } from './execution-request.ts';
import { annotateActiveSpan } from '../../../common/tracing/span-attributes.ts';

export type { InvokeObserver } from './flow-call-authorization.ts';

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
  /** Keys the digests in idempotent execution ids and update ids (idempotency.ts), and flow control's coordinator ids. */
  idempotencyKey: Buffer;
  /** Debounce and batch: hands calls to their collectors (flow-control/call-collector.ts). */
  collector: CallCollector;
  /** Counts what flow control did with accepted calls. */
  metrics?: FlowControlObserver;
}

export async function invokeWebhook(
  deps: InvokeDeps,
  request: InvokeRequest,
  account: ServiceAccountIdentity,
  observer?: InvokeObserver,
): Promise<StartedExecution> {
  checkShape(request);
  const { caller, published, trigger } = await authorizeFlowCall(deps, deps.orm.em.fork(), request, account, observer);
  annotateActiveSpan({
    'flowhook.flow': published.flow.name,
    'flowhook.flow_version': published.flowVersion.version,
    'flowhook.response_mode': trigger.responseMode,
  });
  deps.limits.admitActivity(published.company.name, trigger.activity);
  const execution = await executionRequest(deps, published, trigger, {
    caller: caller.label,
    payloadJson: request.payloadJson,
    idempotencyKey: request.idempotencyKey,
  });
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
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw new InvalidArgumentError('payload must be a JSON object');
  // The facade refuses such bodies already; callers of the engine's RPC directly get the same rule.
  if (nestsDeeperThan(request.payloadJson, MAX_JSON_DEPTH))
    throw new InvalidArgumentError(`payload nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
}
