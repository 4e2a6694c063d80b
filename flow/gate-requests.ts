// The options of a gate's two signal-with-starts, built in one place for the
// engine and the worker: handing an execution to a gate's coordinator (with
// GATE_WORKFLOW_TYPES[gate.kind]: it starts the coordinator if it is not
// running), and a gate's grant to an execution (with
// UNCLAIMED_GRANT_WORKFLOW_TYPE: it wakes the execution if it was started with
// a delay). Neither carries payload data: ids, limits and key labels only.
import { COORDINATOR_PRIORITY } from './flow-control-contract.ts';
import type { AdmissionGate, AdmissionGrant, AdmissionRequest, GateCarry } from './flow-control-contract.ts';
import { admissionGrantSignal, admissionRequestSignal } from './flow-control-messages.ts';

/** The signal-with-start that hands an execution to a gate (its first one, or the next after a gate it passed). */
export function admissionRequestStart(request: AdmissionRequest, taskQueue: string) {
  const { gate } = request;
  return {
    workflowId: gate.coordinatorId,
    taskQueue,
    args: [initialCarry(gate)] as [GateCarry],
    signal: admissionRequestSignal,
    signalArgs: [request] as [AdmissionRequest],
    priority: { priorityKey: COORDINATOR_PRIORITY },
    staticSummary: gate.summary,
  };
}

/**
 * The signal-with-start of a grant. A plain signal does not wake an execution started with a
 * delay; a signal-with-start does. For a running execution it is a signal; for one that closed
 * the reuse policy refuses the start (the grant is for no one); for one Temporal no longer knows
 * it starts a workflow that gives the grant back and ends (unclaimed-grant-workflow.ts).
 */
export function grantStart(executionId: string, grant: AdmissionGrant, taskQueue: string) {
  return {
    workflowId: executionId,
    taskQueue,
    args: [] as [],
    signal: admissionGrantSignal,
    signalArgs: [grant] as [AdmissionGrant],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    priority: { priorityKey: COORDINATOR_PRIORITY },
  };
}

/** What a coordinator started by a request begins with. A pause gate that is not running means the flow is not paused (it runs for as long as it is). */
function initialCarry(gate: AdmissionGate): GateCarry {
  switch (gate.kind) {
    case 'pause':
      return { paused: false };
    case 'throttle':
      return { perSecond: gate.perSecond, burst: gate.burst };
    case 'concurrency':
      return { limit: gate.limit };
  }
}
