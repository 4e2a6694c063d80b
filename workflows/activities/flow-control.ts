// The flow-control activities, run as local activities (no task round trip
// through Temporal): handing an execution to a gate's coordinator, a gate
// letting executions pass (waking each, or handing it to its next gate),
// keeping a page of a long queue, and telling a concurrency coordinator which
// of its holders have closed. All talk to Temporal with the worker's own
// connection; none carries payload data (ids, limits and the engine's key
// labels only).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  COORDINATOR_PRIORITY,
  GATE_PAGE_WORKFLOW_TYPE,
  GATE_WORKFLOW_TYPES,
  UNCLAIMED_GRANT_WORKFLOW_TYPE,
  type AdmissionGrant,
  type AdmissionRequest,
  type GatePageInput,
  type GatePageWorkflow,
  type GateWorkflow,
  type UnclaimedGrantWorkflow,
  type QueuedExecution,
} from '../../flow/flow-control-contract.ts';
import { admissionReleaseSignal, gatePageAddEntriesSignal } from '../../flow/flow-control-messages.ts';
import { admissionRequestStart, grantStart } from '../../flow/gate-requests.ts';

export interface RequestAdmissionInput {
  request: AdmissionRequest;
  /** The execution's task queue: its coordinators run on the same one. */
  taskQueue: string;
}

export interface LetPassInput {
  coordinatorId: string;
  taskQueue: string;
  /** In the order they pass. */
  entries: QueuedExecution[];
  /** The gate's kind, added to an entry's waitedAt when it waited here. */
  gateKind: AdmissionRequest['gate']['kind'];
}

export interface LeaveGatesInput {
  executionId: string;
  coordinatorIds: string[];
}

export interface StartGatePageInput {
  pageId: string;
  taskQueue: string;
  summary: string;
  page: GatePageInput;
}

/** Signal-with-starts in flight at once per batch: enough to hide the round trips, few enough not to flood Temporal. */
const PARALLEL_CALLS = 16;

export function createFlowControlActivities(temporal: Client) {
  return {
    /** Hands the execution to a gate (starting its coordinator if it is not running); a repeat is harmless (coordinators know an execution once). */
    async requestAdmission({ request, taskQueue }: RequestAdmissionInput): Promise<void> {
      await temporal.workflow.signalWithStart<GateWorkflow, [AdmissionRequest]>(
        GATE_WORKFLOW_TYPES[request.gate.kind],
        admissionRequestStart(request, taskQueue),
      );
    },
    /**
     * Lets the entries pass, in order: an execution with gates after this one is handed to the
     * next, the others are granted (and so woken). Returns the executions that no longer run
     * (closed, or unknown to Temporal): their grant is for no one. A retry of the whole batch is
     * harmless: the next gate knows an execution once, and a second grant changes nothing.
     */
    async letPass({ coordinatorId, taskQueue, entries, gateKind }: LetPassInput): Promise<string[]> {
      const gone: string[] = [];
      await inParallel(entries, async (entry) => {
        if (entry.next && entry.next.length > 0) {
          const [gate, ...rest] = entry.next;
          const request: AdmissionRequest = {
            executionId: entry.executionId,
            arrivedAt: entry.arrivedAt,
            gate: gate!,
            ...(rest.length > 0 && { next: rest }),
          };
          if (entry.waitedAt) request.waitedAt = entry.waitedAt;
          await temporal.workflow.signalWithStart<GateWorkflow, [AdmissionRequest]>(
            GATE_WORKFLOW_TYPES[gate!.kind],
            admissionRequestStart(request, taskQueue),
          );
          return;
        }
        const grant = {
          coordinatorId,
          queued: entry.waitedAt?.includes(gateKind) ?? false,
          ...(entry.waitedAt && { waitedAt: entry.waitedAt }),
        };
        try {
          await temporal.workflow.signalWithStart<UnclaimedGrantWorkflow, [AdmissionGrant]>(
            UNCLAIMED_GRANT_WORKFLOW_TYPE,
            grantStart(entry.executionId, grant, taskQueue),
          );
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          gone.push(entry.executionId);
        }
      });
      return gone;
    },
    /** Keeps a page of a gate's waiting executions in Temporal (started again after a retry: the same page). */
    async startGatePage({ pageId, taskQueue, summary, page }: StartGatePageInput): Promise<void> {
      try {
        await temporal.workflow.start<GatePageWorkflow>(GATE_PAGE_WORKFLOW_TYPE, {
          workflowId: pageId,
          taskQueue,
          args: [page],
          priority: { priorityKey: COORDINATOR_PRIORITY },
          staticSummary: summary,
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        // Written before, by an attempt of this workflow task that failed: the retry's tail grew since,
        // so the page is told the entries it lacks (gate-page-workflow.ts keeps each once).
        await temporal.workflow.getHandle(pageId).signal(gatePageAddEntriesSignal, { entries: page.entries });
      }
    },
    /** Tells the gates the execution no longer holds a slot or waits there; a gate that is gone has nothing to give back to. */
    async leaveGates({ executionId, coordinatorIds }: LeaveGatesInput): Promise<void> {
      await inParallel(coordinatorIds, async (coordinatorId) => {
        try {
          await temporal.workflow.getHandle(coordinatorId).signal(admissionReleaseSignal, { executionId });
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }
      });
    },
    /** Which of these executions no longer run (closed, or unknown to Temporal). */
    async closedExecutions(executionIds: string[]): Promise<string[]> {
      const closed: string[] = [];
      await inParallel(executionIds, async (executionId) => {
        try {
          const { status } = await temporal.workflow.getHandle(executionId).describe();
          if (status.name !== 'RUNNING') closed.push(executionId);
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          closed.push(executionId);
        }
      });
      return closed;
    },
  };
}

async function inParallel<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_CALLS, items.length) }, lane));
}
