// What flow control does with one accepted call, decided when it arrives:
// the gates its execution passes (pause, throttle, concurrency), or the
// collector it goes to (debounce, batch), the key labels operators see, the
// payload-derived idempotency key and the priority. Keys are computed here,
// once, by the interpreter's own formula code (flow/control-keys.ts).
import { ControlKeyError, controlKeysOf } from '../../../flow/control-keys.ts';
import { resolveFlowControl } from '../../../flow/flow-control-settings.ts';
import type { AdmissionGate, CollectorPolicy } from '../../../flow/flow-control-contract.ts';
import type { DirectTriggerRequest, ResolvedTrigger } from '../../../flow/index.ts';
import { formatDuration } from '../../../flow/index.ts';
import { InvalidArgumentError } from '../../errors.ts';
import type { PublishedFlowSnapshot } from '../flows/published-flow-lookup.ts';
import { coordinatorId, keyLabel, pauseGateId, type CoordinatedFlow } from './coordinator-ids.ts';

export interface FlowControlPlan {
  /** The execution's gates, in the order it passes them. */
  gates: AdmissionGate[];
  /** The labels of the keys computed (FlowKey search attribute, summary); '' keys are not listed. */
  keyLabels: string[];
  /** Debounce or batch: the call goes to this collector instead of starting an execution. */
  collect?: { collectorId: string; policy: CollectorPolicy; summary: string };
  /** idempotencyKey: the key this call's payload yields (absent when it yields nothing), and how long it is remembered. */
  payloadKey?: { key: string; windowMs: number };
  priority?: number;
  /** The flow was paused when the call arrived: its execution waits for `flow resume`. */
  held: boolean;
}

export interface PlannedCall {
  payloadJson: string;
  direct?: DirectTriggerRequest;
  /** A re-run repeats one execution: it passes the gates, but is neither collected nor deduplicated. */
  rerun?: boolean;
}

const NO_CONTROL: FlowControlPlan = Object.freeze({ gates: [], keyLabels: [], held: false });

export async function planFlowControl(
  secret: Buffer,
  published: PublishedFlowSnapshot,
  trigger: ResolvedTrigger,
  call: PlannedCall,
): Promise<FlowControlPlan> {
  const settings = resolveFlowControl(published.flowVersion.definition.trigger?.webhook ?? {});
  const paused = published.flow.paused;
  if (Object.keys(settings).length === 0 && !paused) return NO_CONTROL;
  const flow: CoordinatedFlow = {
    company: published.company.name,
    flowName: published.flow.name,
    activity: trigger.activity,
  };
  const keys = controlKeysOf({
    company: flow.company,
    activity: trigger.activity,
    description: trigger.description,
    payloadJson: call.payloadJson,
    direct: call.direct,
  });
  const keyOf = async (template: string, field: string) => {
    try {
      return template === '' ? '' : await keys(template);
    } catch (error) {
      if (error instanceof ControlKeyError)
        throw new InvalidArgumentError(
          `trigger.webhook.${field}: the key could not be computed for this call: ${error.message}`,
        );
      throw error;
    }
  };
  const hidden = trigger.doNotLogPayload;
  const named = `${flow.company} · ${flow.flowName}`;
  const plan: FlowControlPlan = {
    gates: [],
    keyLabels: [],
    held: paused,
    ...(settings.priority !== undefined && { priority: settings.priority }),
  };
  const labelled = (key: string) => {
    const label = keyLabel(secret, key, hidden);
    if (label !== '' && !plan.keyLabels.includes(label)) plan.keyLabels.push(label);
    return label;
  };
  const keyText = (label: string) => (label === '' ? '' : ` · key ${label}`);

  if (paused)
    plan.gates.push({ kind: 'pause', coordinatorId: pauseGateId(secret, flow), summary: `paused flow · ${named}` });
  const collecting = !call.rerun && (settings.debounce ?? settings.batch);
  // Per version: a collector starts every execution with the version it began with.
  const collector = async (policy: CollectorPolicy, keyFormula: string, terms: string) => {
    const key = await keyOf(keyFormula, `${policy.kind}.key`);
    const version = String(published.flowVersion.version);
    const summary = `${policy.kind} · ${named}${keyText(labelled(key))} · ${terms}`;
    return { collectorId: coordinatorId(secret, policy.kind, flow, key, version), policy, summary };
  };
  if (collecting && settings.debounce) {
    const { periodMs, maxWaitMs } = settings.debounce;
    // Always bounded: as written, or by the default (flow-control-settings.ts).
    const terms = `${formatDuration(periodMs)} after the last call, at most ${formatDuration(maxWaitMs)}`;
    plan.collect = await collector({ kind: 'debounce', periodMs, maxWaitMs }, settings.debounce.key, terms);
  } else if (collecting && settings.batch) {
    const { maxSize, maxWaitMs } = settings.batch;
    const terms = `up to ${maxSize} calls or ${formatDuration(maxWaitMs)}`;
    plan.collect = await collector({ kind: 'batch', maxSize, maxWaitMs }, settings.batch.key, terms);
  }
  if (settings.throttle) {
    const { perSecond, burst } = settings.throttle;
    const key = await keyOf(settings.throttle.key, 'throttle.key');
    const label = labelled(key);
    plan.gates.push({
      kind: 'throttle',
      coordinatorId: coordinatorId(secret, 'throttle', flow, key),
      summary: `throttle · ${named}${keyText(label)} · ${perSecond}/s, burst ${burst}`,
      keyLabel: label,
      perSecond,
      burst,
    });
  }
  if (settings.concurrency) {
    const { limit } = settings.concurrency;
    const key = await keyOf(settings.concurrency.key, 'concurrency.key');
    const label = labelled(key);
    plan.gates.push({
      kind: 'concurrency',
      coordinatorId: coordinatorId(secret, 'concurrency', flow, key),
      summary: `concurrency · ${named}${keyText(label)} · limit ${limit}`,
      keyLabel: label,
      limit,
    });
  }
  if (settings.idempotency && !call.rerun) {
    const key = await keyOf(settings.idempotency.key, 'idempotencyKey');
    if (key !== '') plan.payloadKey = { key, windowMs: settings.idempotency.windowMs };
  }
  return plan;
}
