// What to start for one accepted call, and starting it, the same for both doors (the OData
// route, invoke-webhook.ts, and the provider route, invoke-direct.ts): the
// flow's input, an execution id (deterministic when the call carries an
// idempotency key or a provider's event id), the execution grant and the
// search attributes.
import type { FlowExecutionInput, ResolvedTrigger } from '../../workflows/shared/index.ts';
import { mintExecutionGrant } from '../security/execution-grants.ts';
import { newExecutionId, type ExecutionRequest } from '../temporal/execution-start-options.ts';
import type { StartedExecution } from '../temporal/execution-starter.ts';
import { executionSearchAttributes } from '../temporal/search-attributes.ts';
import { idempotentExecutionId, payloadDigest } from './idempotency.ts';
import type { InvokeDeps } from './invoke-webhook.ts';
import type { PublishedFlowSnapshot } from './published-flow-lookup.ts';

export interface AcceptedCall {
  /** The caller's label: `user:…`, `app:…`, `account:…` or `provider:<scheme>`. */
  caller: string;
  payloadJson: string;
  /** An Idempotency-Key or a provider's event id. */
  idempotencyKey?: string;
  /** What a repeated key must match; default the payload text. */
  digestText?: string;
  direct?: FlowExecutionInput['direct'];
  /** A fresh id chosen by the starter of a re-run (engine/executions/rerun-execution.ts); never with an idempotency key. */
  executionId?: string;
}

export function executionRequest(
  deps: Pick<InvokeDeps, 'flowLimits' | 'grantKey' | 'idempotencyKey' | 'useSearchAttributes'>,
  published: PublishedFlowSnapshot,
  trigger: ResolvedTrigger,
  call: AcceptedCall,
): ExecutionRequest {
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
  };
  const key = call.idempotencyKey || undefined;
  const workflowId =
    call.executionId ??
    (key ? idempotentExecutionId(deps.idempotencyKey, { company: input.company, caller: call.caller, activity: trigger.activity, key }) : newExecutionId(trigger.activity));
  const { grant, runMark } = mintExecutionGrant(deps.grantKey, workflowId, input.company);
  return {
    input: { ...input, executionGrant: grant },
    runMark,
    workflowId,
    payloadDigest: key ? payloadDigest(deps.idempotencyKey, call.digestText ?? call.payloadJson) : undefined,
    idempotencyKey: key,
    searchAttributes: deps.useSearchAttributes()
      ? executionSearchAttributes({
          company: input.company,
          activity: trigger.activity,
          flowName: input.flowName,
          flowVersion: input.flowVersion,
          responseMode: trigger.responseMode,
          caller: call.caller,
        })
      : undefined,
  };
}

/** Starts it: at once for Instant return; a sync call holds one slot of the sync-call cap while the caller waits. */
export async function startExecution(deps: Pick<InvokeDeps, 'starter' | 'limits'>, execution: ExecutionRequest, responseMode: string): Promise<StartedExecution> {
  if (responseMode !== 'WAIT_FOR_RESPONSE_STEP') return deps.starter.startInstant(execution);
  const release = deps.limits.acquireSyncSlot();
  try {
    return await deps.starter.startAndWait(execution);
  } finally {
    release();
  }
}
