// An execution's side of flow control: before its steps run it passes its
// gates (pause, throttle, concurrency, in that order). For each it asks the
// gate's coordinator — signal-with-start from a local activity, so the first
// request starts the coordinator — and waits for the grant signal. A
// concurrency slot is given back when the execution ends, however it ends
// (also when it is cancelled while it still waits: it then leaves the queue).
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { FlowActivities } from '../activities/index.ts';
import type { AdmissionGate, AdmissionGrant, ExecutionControl } from '../shared/flow-control-contract.ts';
import { admissionGrantSignal, admissionReleaseSignal } from '../shared/flow-control-messages.ts';
import { COMPANY_KEY, FLOW_WAIT_KEY } from '../shared/search-attribute-keys.ts';
import { reportGatePassed } from './flow-control-metrics.ts';

export interface Admission {
  /** How long the execution waited at its gates (workflow time). */
  waitedMs: number;
  /** Gives back what the execution holds (its concurrency slots); idempotent and never throws. */
  release(): Promise<void>;
}

const NOTHING_HELD: Admission = { waitedMs: 0, release: async () => undefined };

const { requestAdmission } = proxyLocalActivities<FlowActivities>({ startToCloseTimeout: '30s', retry: { maximumInterval: '30s' } });

export async function passGates(control: ExecutionControl | undefined, flow: { company: string; flowName: string }): Promise<Admission> {
  if (!control || control.gates.length === 0) return NOTHING_HELD;
  const info = workflowInfo();
  const grants = new Map<string, AdmissionGrant>();
  setHandler(admissionGrantSignal, (grant) => void grants.set(grant.coordinatorId, grant));
  const slots: string[] = [];
  const release = () =>
    CancellationScope.nonCancellable(async () => {
      const held = slots.splice(0);
      // A coordinator that is gone has nothing to give back to.
      await Promise.all(
        held.map((id) =>
          getExternalWorkflowHandle(id)
            .signal(admissionReleaseSignal, { executionId: info.workflowId })
            .catch(() => undefined),
        ),
      );
    });
  const startedAt = Date.now();
  try {
    for (const gate of control.gates) {
      // Listed before asking: cancelled while waiting, the execution still leaves the queue.
      if (gate.kind === 'concurrency') slots.push(gate.coordinatorId);
      setCurrentDetails(waitingFor(gate));
      await requestAdmission({ request: { executionId: info.workflowId, arrivedAt: info.startTime.getTime(), gate }, taskQueue: info.taskQueue });
      await condition(() => grants.has(gate.coordinatorId));
      reportGatePassed(flow, gate.kind, grants.get(gate.coordinatorId)!.queued);
    }
  } catch (error) {
    await release();
    throw error;
  }
  const waitedMs = Date.now() - startedAt;
  if (info.typedSearchAttributes.get(COMPANY_KEY) !== undefined) upsertSearchAttributes([{ key: FLOW_WAIT_KEY, value: waitedMs }]);
  return { waitedMs, release };
}

/** What the Temporal UI shows while the execution waits (keys as the engine labelled them: never payload data of doNotLogPayload flows). */
function waitingFor(gate: AdmissionGate): string {
  switch (gate.kind) {
    case 'pause':
      return '**held**: the flow is paused; it runs after `flowhook flow resume`';
    case 'throttle':
      return `**throttled**: waiting for its start at ${gate.perSecond}/s (burst ${gate.burst})${keyText(gate.keyLabel)}`;
    case 'concurrency':
      return `**queued**: waiting for one of ${gate.limit} slot${gate.limit === 1 ? '' : 's'}${keyText(gate.keyLabel)}`;
  }
}

function keyText(label: string): string {
  return label === '' ? '' : ` of key \`${label.replaceAll('`', "'")}\``;
}
