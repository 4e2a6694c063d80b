// An execution's side of flow control: before its steps run it passes its
// gates (pause, throttle, concurrency, in that order). It is handed to its
// first gate — by the engine, which started it with a delay (an execution
// that waits is then nothing but its start in Temporal), or by itself, when
// it runs at once (Wait for Response step) — and each gate hands it on to the
// next; the last one's grant, a signal-with-start, wakes it. An execution
// that wakes without its grant (the delay ran out: its turn is late, or the
// engine could not hand it over) asks its first gate itself, and again after
// each deadline, so no wait is forever. A concurrency slot is given back when
// the execution ends, however it ends; one cancelled while it waits leaves
// every queue it may be in.
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
import {
  ADMISSION_DEADLINE,
  type AdmissionGate,
  type AdmissionGrant,
  type ExecutionControl,
} from '../../flow/flow-control-contract.ts';
import { admissionGrantSignal, admissionReleaseSignal } from '../../flow/flow-control-messages.ts';
import { COMPANY_KEY, FLOW_WAIT_KEY } from '../../flow/search-attribute-keys.ts';
import { reportGatePassed } from './flow-control-metrics.ts';

export interface Admission {
  /** How long the execution waited at its gates (workflow time, from its start). */
  waitedMs: number;
  /** Gives back what the execution holds (its concurrency slot); idempotent and never throws. */
  release(): Promise<void>;
}

const NOTHING_HELD: Admission = { waitedMs: 0, release: async () => undefined };

const { requestAdmission, leaveGates } = proxyLocalActivities<FlowActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumInterval: '30s' },
});

export async function passGates(
  control: ExecutionControl | undefined,
  flow: { company: string; flowName: string },
): Promise<Admission> {
  if (!control || control.gates.length === 0) return NOTHING_HELD;
  // Executions started before gates handed them on replay the way they ran.
  if (!control.handOn) return passGatesOneByOne(control, flow);
  const info = workflowInfo();
  const { gates } = control;
  const last = gates.at(-1)!;
  let grant: AdmissionGrant | undefined;
  // The grant that woke it came with its first task: it is delivered here, before anything is asked.
  setHandler(admissionGrantSignal, (signal) => {
    if (signal.coordinatorId === last.coordinatorId) grant = signal;
  });
  let passed = false;
  const release = () =>
    CancellationScope.nonCancellable(async () => {
      // Passed: only a slot is held. Still waiting: it may be queued at any of its gates.
      const held = passed ? gates.filter((gate) => gate.kind === 'concurrency') : gates;
      passed = false;
      // A local activity, not a signal command: the gate hears of it at once, and the execution
      // ends in the same workflow task instead of waiting one more for the signal's confirmation.
      if (held.length > 0)
        await leaveGates({ executionId: info.workflowId, coordinatorIds: held.map((gate) => gate.coordinatorId) });
    });
  try {
    if (grant === undefined) {
      setCurrentDetails(waitingFor(gates[0]!));
      for (
        let deadline: number = ADMISSION_DEADLINE.minMs;
        ;
        deadline = Math.min(deadline * 2, ADMISSION_DEADLINE.maxMs)
      ) {
        const request = {
          executionId: info.workflowId,
          arrivedAt: info.startTime.getTime(),
          gate: gates[0]!,
          ...(gates.length > 1 && { next: gates.slice(1) }),
        };
        await requestAdmission({ request, taskQueue: info.taskQueue });
        if (await condition(() => grant !== undefined, deadline)) break;
      }
    }
  } catch (error) {
    await release();
    throw error;
  }
  passed = true;
  const waitedAt = new Set(grant!.waitedAt ?? []);
  for (const gate of gates) reportGatePassed(flow, gate.kind, waitedAt.has(gate.kind));
  const waitedMs = Math.max(0, Date.now() - info.startTime.getTime());
  if (info.typedSearchAttributes.get(COMPANY_KEY) !== undefined)
    upsertSearchAttributes([{ key: FLOW_WAIT_KEY, value: waitedMs }]);
  return { waitedMs, release };
}

/**
 * How executions started before GATES_HAND_ON_PATCH pass: each gate asked in turn, each grant
 * waited for without a deadline. Kept so they replay as they ran.
 */
async function passGatesOneByOne(
  control: ExecutionControl,
  flow: { company: string; flowName: string },
): Promise<Admission> {
  const info = workflowInfo();
  const grants = new Map<string, AdmissionGrant>();
  setHandler(admissionGrantSignal, (grant) => void grants.set(grant.coordinatorId, grant));
  const slots: string[] = [];
  const release = () =>
    CancellationScope.nonCancellable(() => Promise.all(slots.splice(0).map(tell)).then(() => undefined));
  const startedAt = Date.now();
  try {
    for (const gate of control.gates) {
      if (gate.kind === 'concurrency') slots.push(gate.coordinatorId);
      setCurrentDetails(waitingFor(gate));
      await requestAdmission({
        request: { executionId: info.workflowId, arrivedAt: info.startTime.getTime(), gate },
        taskQueue: info.taskQueue,
      });
      await condition(() => grants.has(gate.coordinatorId));
      reportGatePassed(flow, gate.kind, grants.get(gate.coordinatorId)!.queued);
    }
  } catch (error) {
    await release();
    throw error;
  }
  const waitedMs = Date.now() - startedAt;
  if (info.typedSearchAttributes.get(COMPANY_KEY) !== undefined)
    upsertSearchAttributes([{ key: FLOW_WAIT_KEY, value: waitedMs }]);
  return { waitedMs, release };
}

/** Tells a gate this execution no longer holds or waits (the gate-by-gate way); a coordinator that is gone has nothing to give back to. */
async function tell(coordinatorId: string): Promise<void> {
  await getExternalWorkflowHandle(coordinatorId)
    .signal(admissionReleaseSignal, { executionId: workflowInfo().workflowId })
    .catch(() => undefined);
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
