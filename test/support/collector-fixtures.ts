// What the collector's pure tests hand it: an execution template and collected calls
// (test/unit/flow-control-logic.test.ts, collector-window-size.test.ts).
import type { CollectedCall, ExecutionTemplate } from '../../flow/flow-control-contract.ts';
import type { FlowExecutionInput } from '../../flow/flow-contract.ts';

export function executionTemplate(steps: FlowExecutionInput['steps'] = []): ExecutionTemplate {
  return {
    company: 'Acme',
    flowName: 'f',
    flowVersion: 1,
    steps,
    trigger: {
      activity: 'a',
      description: '',
      responseMode: 'INSTANT_RETURN',
      syncTimeoutMs: 30_000,
      defaultResponse: { statusCode: 200, contentType: 'application/json' },
      doNotLogPayload: false,
    },
  };
}

/** Call `n`: payload `{"n": n}`, caller `user:n`, the seed of execution `exec-n`. */
export function collectedCall(n: number, extra: Partial<CollectedCall> = {}): CollectedCall {
  return {
    callId: `call-${n}`,
    keyed: false,
    payloadJson: `{"n": ${n}}`,
    caller: `user:${n}`,
    held: false,
    seed: {
      workflowId: `exec-${n}`,
      executionGrant: `grant-${n}`,
      memo: {},
      staticSummary: '',
      staticDetails: '',
      priority: { fairnessKey: 'Acme' },
    },
    ...extra,
  };
}
