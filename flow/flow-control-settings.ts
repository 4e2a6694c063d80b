// A webhook trigger's flow control (concurrency, throttle, debounce, batch,
// idempotencyKey, priority) with its defaults applied and durations in
// milliseconds, read in one place by publish validation and by the engine.
// The bounds are here too, so what validation refuses and what the engine
// relies on cannot drift apart.
import type { WebhookTriggerJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import { parseDuration } from '../common/duration.ts';
import { defaultDebounceMaxWaitMs } from './flow-control-contract.ts';

export const CONTROL_BOUNDS = {
  concurrencyLimit: { min: 1, max: 1000, default: 1 },
  perSecond: { max: 1000 },
  burst: { min: 1, max: 1000, default: 1 },
  debouncePeriodMs: { min: 1000, max: 86_400_000 },
  debounceMaxWaitMs: { max: 7 * 86_400_000 },
  batchMaxSize: { min: 1, max: 100 },
  batchMaxWaitMs: { min: 1000, max: 86_400_000 },
  idempotencyWindowMs: { min: 60_000, max: 30 * 86_400_000, default: 86_400_000 },
  priority: { min: 1, max: 5, default: 3 },
} as const;

export interface FlowControlSettings {
  concurrency?: { key: string; limit: number };
  throttle?: { key: string; perSecond: number; burst: number };
  /** maxWaitMs: as written, or the default (defaultDebounceMaxWaitMs). */
  debounce?: { key: string; periodMs: number; maxWaitMs: number };
  batch?: { key: string; maxSize: number; maxWaitMs: number };
  idempotency?: { key: string; windowMs: number };
  /** Temporal's priorityKey; undefined leaves Temporal's default (the middle, 3). */
  priority?: number;
}

/**
 * The settings of a published (hence valid) trigger. A duration that does not
 * parse counts as absent here; validation is what refuses it.
 */
export function resolveFlowControl(webhook: WebhookTriggerJson): FlowControlSettings {
  const settings: FlowControlSettings = {};
  if (webhook.concurrency) {
    settings.concurrency = {
      key: webhook.concurrency.key ?? '',
      limit: webhook.concurrency.limit ?? CONTROL_BOUNDS.concurrencyLimit.default,
    };
  }
  if (webhook.throttle) {
    settings.throttle = {
      key: webhook.throttle.key ?? '',
      perSecond: Number(webhook.throttle.perSecond ?? 0),
      burst: webhook.throttle.burst ?? CONTROL_BOUNDS.burst.default,
    };
  }
  if (webhook.debounce) {
    const periodMs = durationOf(webhook.debounce.period) ?? 0;
    settings.debounce = {
      key: webhook.debounce.key ?? '',
      periodMs,
      maxWaitMs: durationOf(webhook.debounce.maxWait) ?? defaultDebounceMaxWaitMs(periodMs),
    };
  }
  if (webhook.batch) {
    settings.batch = {
      key: webhook.batch.key ?? '',
      maxSize: webhook.batch.maxSize ?? 0,
      maxWaitMs: durationOf(webhook.batch.maxWait) ?? 0,
    };
  }
  if (webhook.idempotencyKey) {
    settings.idempotency = {
      key: webhook.idempotencyKey,
      windowMs: durationOf(webhook.idempotencyWindow) ?? CONTROL_BOUNDS.idempotencyWindowMs.default,
    };
  }
  if (webhook.priority !== undefined) settings.priority = webhook.priority;
  return settings;
}

/** The collecting control of a trigger: its calls do not start executions of their own. */
export function collectingControl(settings: FlowControlSettings): 'debounce' | 'batch' | undefined {
  if (settings.debounce) return 'debounce';
  if (settings.batch) return 'batch';
  return undefined;
}

function durationOf(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseDuration(text);
  return typeof parsed === 'number' ? parsed : undefined;
}
