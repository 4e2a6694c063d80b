// The flow-control activities, run as local activities (no task round trip
// through Temporal): asking a gate's coordinator with signal-with-start, and
// telling a concurrency coordinator which of its holders have closed. Both
// talk to Temporal with the worker's own connection; neither carries payload
// data (ids, limits and the engine's key labels only).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { COORDINATOR_PRIORITY, GATE_WORKFLOW_TYPES, type AdmissionGate, type AdmissionRequest, type GateState } from '../shared/flow-control-contract.ts';
import { admissionRequestSignal } from '../shared/flow-control-messages.ts';

export interface RequestAdmissionInput {
  request: AdmissionRequest;
  /** The execution's task queue: its coordinators run on the same one. */
  taskQueue: string;
}

export function createFlowControlActivities(temporal: Client) {
  return {
    /** Starts the gate's coordinator if it is not running and hands it the request; a retry is harmless (coordinators know an execution once). */
    async requestAdmission({ request, taskQueue }: RequestAdmissionInput): Promise<void> {
      const { gate } = request;
      await temporal.workflow.signalWithStart(GATE_WORKFLOW_TYPES[gate.kind], {
        workflowId: gate.coordinatorId,
        taskQueue,
        args: [initialState(gate)],
        signal: admissionRequestSignal,
        signalArgs: [request],
        priority: { priorityKey: COORDINATOR_PRIORITY },
        staticSummary: gate.summary,
      });
    },
    /** Which of these executions no longer run (closed, or unknown to Temporal). */
    async closedExecutions(executionIds: string[]): Promise<string[]> {
      const closed: string[] = [];
      for (const executionId of executionIds) {
        try {
          const { status } = await temporal.workflow.getHandle(executionId).describe();
          if (status.name !== 'RUNNING') closed.push(executionId);
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          closed.push(executionId);
        }
      }
      return closed;
    },
  };
}

/**
 * A coordinator started by this request. A pause gate that is not running means the flow is not
 * paused (the gate runs for as long as it is): it starts open (pause-gate-workflow.ts).
 */
function initialState(gate: AdmissionGate): GateState {
  switch (gate.kind) {
    case 'pause':
      return { queue: [], paused: false };
    case 'throttle':
      return { queue: [], perSecond: gate.perSecond, burst: gate.burst };
    case 'concurrency':
      return { queue: [], holders: {}, limit: gate.limit };
  }
}
