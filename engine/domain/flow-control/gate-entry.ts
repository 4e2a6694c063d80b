// How a call whose execution passes flow-control gates (pause, throttle,
// concurrency) enters them. Before the start: the cap on waiting executions
// (gate-backlogs.ts) may refuse it with 429. An Instant-return execution then
// starts with a delay — it costs Temporal storage while it waits, and no
// worker memory, CPU or task-queue place — and, once Temporal acknowledged
// the start, the engine hands it to its first gate, whose grant wakes it.
// Should the hand-over fail (Temporal answered the start but not the
// signal), the call is still answered 200: the execution is durable and asks
// its gate itself when its delay ends (workflows/flow-control/admission.ts). A
// sync execution runs at once and asks its gate itself.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import {
  admissionDeadlineMs,
  GATE_WORKFLOW_TYPES,
  type AdmissionGate,
  type AdmissionRequest,
  type GateWorkflow,
} from '../../../flow/flow-control-contract.ts';
import type { GateEntry } from '../executions/execution-starter.ts';
import { gateBacklogQuery } from '../../../flow/flow-control-messages.ts';
import { admissionRequestStart } from '../../../flow/gate-requests.ts';
import { GateBacklogs } from './gate-backlogs.ts';

export interface GateEntryOptions {
  client: Client;
  taskQueue: string;
  temporalTimeoutMs: number;
  /** FLOWHOOK_FLOW_CONTROL_MAX_WAITING: executions waiting at one gate at most. */
  maxWaiting: number;
  logger: Logger;
  /** Engines sharing the calls now (their heartbeats): each sees about 1/N of a gate's calls. */
  liveEngines?: () => number;
}

/** A gate's backlog is asked with this deadline; an answer that takes longer leaves the estimate as it is. */
const BACKLOG_QUERY_MS = 2000;
/** The hand-over is tried this often, these milliseconds apart, within the Temporal timeout. */
const HAND_OVER_BACKOFF_MS = [100, 400];

export function createGateEntry(options: GateEntryOptions): GateEntry {
  const { client, taskQueue, logger } = options;
  const backlogs = new GateBacklogs({
    maxWaiting: options.maxWaiting,
    liveEngines: options.liveEngines,
    async ask(coordinatorId) {
      try {
        const backlog = await client.connection.withDeadline(Date.now() + BACKLOG_QUERY_MS, () =>
          client.workflow.getHandle<GateWorkflow>(coordinatorId).query(gateBacklogQuery),
        );
        return backlog.waiting;
      } catch (error) {
        // No coordinator: nothing waits. Anything else (no worker now): the estimate stands.
        return error instanceof WorkflowNotFoundError ? 0 : undefined;
      }
    },
  });

  return {
    /**
     * Before the start: refuses the call (LimitRefusedError, 429) when one of its gates is full.
     * `startDelayMs` is how long an Instant-return execution sleeps before it asks its gate itself:
     * longer behind a longer backlog, so a long wait does not wake executions before their turn.
     */
    admit(gates: readonly AdmissionGate[]): { startDelayMs: number } {
      backlogs.check(gates);
      return {
        startDelayMs: admissionDeadlineMs(Math.max(...gates.map((gate) => backlogs.estimate(gate.coordinatorId)))),
      };
    },

    /** Temporal acknowledged the start: the execution waits at its gates; one started with a delay is handed to its first. */
    async accepted(executionId: string, gates: readonly AdmissionGate[], handOver: boolean): Promise<void> {
      backlogs.accepted(gates);
      if (!handOver) return;
      const request: AdmissionRequest = {
        executionId,
        arrivedAt: Date.now(),
        gate: gates[0]!,
        ...(gates.length > 1 && { next: gates.slice(1) }),
      };
      const start = admissionRequestStart(request, taskQueue);
      const deadline = Date.now() + options.temporalTimeoutMs;
      for (let attempt = 0; ; attempt++) {
        try {
          await client.connection.withDeadline(deadline, () =>
            client.workflow.signalWithStart<GateWorkflow, [AdmissionRequest]>(
              GATE_WORKFLOW_TYPES[request.gate.kind],
              start,
            ),
          );
          return;
        } catch (error) {
          const backoff = HAND_OVER_BACKOFF_MS[attempt];
          if (backoff !== undefined && Date.now() + backoff < deadline) {
            await new Promise((resolve) => setTimeout(resolve, backoff));
            continue;
          }
          logger.warn(
            {
              executionId,
              gate: request.gate.coordinatorId,
              reason: error instanceof Error ? error.message.split('\n')[0] : String(error),
            },
            'an execution could not be handed to its flow-control gate; it asks the gate itself when its start delay ends',
          );
          return;
        }
      }
    },
  };
}
