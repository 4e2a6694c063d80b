// `flowhook flow pause|resume <company> <flow>`. The flow's row says whether
// it is paused (PostgreSQL, announced on the change feed, so every engine's
// cached flow knows within milliseconds): while it is, engines accept calls
// as always and give each execution the flow's pause gate, a coordinator
// workflow in Temporal that holds them until resume (workflows/flow-control/
// pause-gate-workflow.ts). Order matters at both ends so that nothing is held
// for good: pausing starts the gate paused *before* engines hold anything,
// and resuming stops engines holding *before* the gate lets the held go.
// A call an engine accepts before it heard of a pause runs unheld.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  COORDINATOR_PRIORITY,
  PAUSE_GATE_WORKFLOW_TYPE,
  type GateCarry,
  type GateWorkflow,
} from '../../../flow/flow-control-contract.ts';
import { flowPausedSignal } from '../../../flow/flow-control-messages.ts';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import type { Flow } from '../../infrastructure/storage/entities.ts';
import { unavailable } from '../../infrastructure/temporal/temporal-unavailable.ts';
import { pauseGateId } from './coordinator-ids.ts';

export interface FlowPauseDeps {
  changes: ChangeAnnouncer;
  temporal: Client;
  taskQueue: string;
  /** Keys the gate's workflow id (coordinator-ids.ts). */
  idempotencyKey: Buffer;
}

/** Pauses the flow; false when it was paused already. */
export async function pauseFlow(deps: FlowPauseDeps, em: EntityManager, flow: Flow): Promise<boolean> {
  const gate = pauseGateId(deps.idempotencyKey, { company: flow.company.name, flowName: flow.name });
  const paused: GateCarry = { paused: true };
  try {
    await deps.temporal.workflow.signalWithStart<GateWorkflow, [{ paused: boolean }]>(PAUSE_GATE_WORKFLOW_TYPE, {
      workflowId: gate,
      taskQueue: deps.taskQueue,
      args: [paused],
      signal: flowPausedSignal,
      signalArgs: [{ paused: true }],
      priority: { priorityKey: COORDINATOR_PRIORITY },
      staticSummary: `paused flow · ${flow.company.name} · ${flow.name}`,
    });
  } catch (error) {
    throw unavailable(error);
  }
  if (flow.pausedAt) return false;
  flow.pausedAt = new Date();
  await em.flush();
  await deps.changes.announce(em, 'flows');
  return true;
}

/** Resumes the flow; false when it was not paused (the gate is told anyway: a resume that failed half-way is finished). */
export async function resumeFlow(deps: FlowPauseDeps, em: EntityManager, flow: Flow): Promise<boolean> {
  const changed = flow.pausedAt != null;
  if (changed) {
    flow.pausedAt = null;
    await em.flush();
    await deps.changes.announce(em, 'flows');
  }
  const gate = pauseGateId(deps.idempotencyKey, { company: flow.company.name, flowName: flow.name });
  try {
    await deps.temporal.workflow.getHandle<GateWorkflow>(gate).signal(flowPausedSignal, { paused: false });
  } catch (error) {
    // No gate running: nothing is held.
    if (!(error instanceof WorkflowNotFoundError)) throw unavailable(error);
  }
  return changed;
}
