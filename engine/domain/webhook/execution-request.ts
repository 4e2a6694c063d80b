// What to start for one accepted call, and starting it, the same for both doors (the OData
// route, invoke-webhook.ts, and the provider route, invoke-direct.ts): the
// flow's input, an execution id (deterministic when the call carries an
// idempotency key or a provider's event id), the execution grant and the
// search attributes.
import { randomUUID } from 'node:crypto';
import type { FlowExecutionInput, ResolvedTrigger } from '../../../flow/index.ts';
import { mintExecutionGrant } from '../executions/execution-grants.ts';
import { newExecutionId, type ExecutionRequest } from '../executions/execution-start-options.ts';
import type { StartedExecution } from '../executions/execution-starter.ts';
import { executionSearchAttributes } from '../../infrastructure/temporal/search-attributes.ts';
import { planFlowControl } from '../flow-control/flow-control-plan.ts';
import { payloadKeyedExecutionId } from '../flow-control/payload-keys.ts';
import { idempotentExecutionId, payloadDigest } from '../flow-control/idempotency.ts';
import type { InvokeDeps } from './invoke-webhook.ts';
import type { PublishedFlowSnapshot } from '../flows/published-flow-lookup.ts';

export interface AcceptedCall {
  /** The caller's label: `user:…`, `app:…`, `account:…` or `provider:<scheme>`. */
  caller: string;
  payloadJson: string;
  /** An Idempotency-Key or a provider's event id. */
  idempotencyKey?: string;
  /** What a repeated key must match; default the payload text. */
  digestText?: string;
  direct?: FlowExecutionInput['direct'];
  /** A fresh id chosen by the starter of a re-run (engine/domain/reruns/rerun-execution.ts); never with an idempotency key. */
  executionId?: string;
  /** A re-run of a debounce or batch execution sees the calls its original stood for. */
  collected?: Pick<FlowExecutionInput, 'coalesced' | 'batch'>;
}

export async function executionRequest(
  deps: Pick<InvokeDeps, 'flowLimits' | 'grantKey' | 'idempotencyKey' | 'useSearchAttributes' | 'starter'>,
  published: PublishedFlowSnapshot,
  trigger: ResolvedTrigger,
  call: AcceptedCall,
): Promise<ExecutionRequest> {
  // Flow control's keys come from the call (flow/control-keys.ts); a re-run is neither collected nor deduplicated.
  const plan = await planFlowControl(deps.idempotencyKey, published, trigger, {
    payloadJson: call.payloadJson,
    direct: call.direct,
    rerun: call.executionId !== undefined,
  });
  const input: FlowExecutionInput = {
    company: published.company.name,
    flowName: published.flow.name,
    flowVersion: published.flowVersion.version,
    steps: published.flowVersion.definition.steps ?? [],
    trigger: {
      activity: trigger.activity,
      description: trigger.description,
      responseMode: trigger.responseMode,
      syncTimeoutMs: trigger.syncTimeoutSeconds * 1000,
      defaultResponse: trigger.defaultResponse,
      doNotLogPayload: trigger.doNotLogPayload,
    },
    payloadJson: call.payloadJson,
    ...(call.direct && { direct: call.direct }),
    caller: call.caller,
    limits: deps.flowLimits,
    exactValues: true,
    ...(plan.gates.length > 0 && { control: { gates: plan.gates, handOn: true } }),
    ...call.collected,
  };
  // A header (or a provider's delivery key) wins over the flow's idempotencyKey.
  const headerKey = call.idempotencyKey || undefined;
  const keyedId = (key: string) =>
    idempotentExecutionId(deps.idempotencyKey, {
      company: input.company,
      caller: call.caller,
      activity: trigger.activity,
      key,
    });
  const digest =
    (headerKey ?? plan.payloadKey)
      ? payloadDigest(deps.idempotencyKey, call.digestText ?? call.payloadJson)
      : undefined;
  let executionId: string;
  if (call.executionId) executionId = call.executionId;
  // A collected call's execution is the window's: a fresh id, started only if this call opens the window.
  else if (plan.collect || !(headerKey ?? plan.payloadKey)) executionId = newExecutionId(trigger.activity);
  else if (headerKey) executionId = keyedId(headerKey);
  else {
    const { key, windowMs } = plan.payloadKey!;
    executionId = await payloadKeyedExecutionId(deps.idempotencyKey, deps.starter.startTimeOf, {
      company: input.company,
      caller: call.caller,
      activity: trigger.activity,
      key,
      windowMs,
    });
  }
  const { grant, runMark } = mintExecutionGrant(deps.grantKey, executionId, input.company);
  const searchAttributes = deps.useSearchAttributes()
    ? executionSearchAttributes({
        company: input.company,
        activity: trigger.activity,
        flowName: input.flowName,
        flowVersion: input.flowVersion,
        responseMode: trigger.responseMode,
        caller: call.caller,
        keys: plan.keyLabels,
      })
    : undefined;
  const request: ExecutionRequest = {
    input: { ...input, executionGrant: grant },
    runMark,
    executionId,
    idempotencyKey: headerKey ?? plan.payloadKey?.key,
    searchAttributes,
    ...(plan.priority !== undefined && { priorityKey: plan.priority }),
    ...(plan.keyLabels.length > 0 && { keyLabels: plan.keyLabels }),
  };
  if (plan.collect) {
    request.collect = {
      ...plan.collect,
      callId: headerKey ? keyedId(headerKey) : randomUUID(),
      keyed: headerKey !== undefined,
      held: plan.held,
      ...(digest && { payloadDigest: digest }),
    };
  } else if (digest) {
    request.payloadDigest = digest;
    if (!headerKey) request.joinsAnyBody = true;
  }
  return request;
}

/**
 * Starts it: a collected call goes to its collector; otherwise at once for Instant return, and a
 * sync call holds one slot of the sync-call cap while the caller waits.
 */
export async function startExecution(
  deps: Pick<InvokeDeps, 'starter' | 'limits' | 'collector' | 'metrics'>,
  execution: ExecutionRequest,
  responseMode: string,
): Promise<StartedExecution> {
  const count = (what: FlowControlCall) =>
    deps.metrics?.flowControlCall(execution.input.company, execution.input.trigger.activity, what);
  const held = execution.input.control?.gates.some((gate) => gate.kind === 'pause') || execution.collect?.held;
  if (execution.collect) {
    const collected = await deps.collector.collect(execution);
    count(collected.repeated ? 'deduplicated' : execution.collect.policy.kind === 'debounce' ? 'coalesced' : 'batched');
    if (held && !collected.repeated) count('held');
    return collected;
  }
  const started = await startOne(deps, execution, responseMode);
  if (started.joined) count('deduplicated');
  else if (held) count('held');
  return started;
}

function startOne(
  deps: Pick<InvokeDeps, 'starter' | 'limits'>,
  execution: ExecutionRequest,
  responseMode: string,
): Promise<StartedExecution> {
  if (responseMode !== 'WAIT_FOR_RESPONSE_STEP') return deps.starter.startInstant(execution);
  const release = deps.limits.acquireSyncSlot();
  return deps.starter.startAndWait(execution).finally(release);
}

/** What flow control did with an accepted call, for flowhook_engine_flow_control_calls_total. */
export type FlowControlCall = 'coalesced' | 'batched' | 'deduplicated' | 'held';

/** Counts what flow control did with accepted calls (the engine's metrics, which observe this room from above). */
export interface FlowControlObserver {
  flowControlCall(company: string, activity: string, what: FlowControlCall): void;
}
