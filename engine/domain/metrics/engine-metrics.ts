// The engine's Prometheus metrics: webhook calls as the engine decided them
// (per published flow once the lookup found one), Temporal start latency,
// sync-window waits, rate-limit refusals and cache lookups. One instance per
// engine (runEngine), in its own registry; served by common/metrics/metrics-listener.ts.
import { Code } from '@connectrpc/connect';
import { DIRECT_SCHEMES } from '../../../flow/direct-route.ts';
import {
  MAX_FLOW_SERIES,
  webhookCallSeries,
  type CallMode,
  type CallOutcome,
} from '../../../common/metrics/call-labels.ts';
import { BoundedPairs, OTHER, UNKNOWN } from '../../../common/metrics/label-values.ts';
import {
  CALL_SECONDS_BUCKETS,
  createMetricsRegistry,
  type MetricsRegistry,
} from '../../../common/metrics/metrics-registry.ts';
import type { WebhookOutcome } from '../../../flow/index.ts';
import { engineCode } from '../../error-codes.ts';
import type { InvokeObserver } from '../webhook/invoke-webhook.ts';
import type { LimitName } from '../limits/webhook-limits.ts';
import { ANSWER_METRIC } from './call-minutes.ts';
import type { FlowControlCall } from '../webhook/execution-request.ts';
import { createRetentionMetrics, type RetentionMetrics } from '../retention/retention-metrics.ts';
import { createDeliveryLogMetrics, type DeliveryLogMetrics } from '../deliveries/delivery-metrics.ts';

const ANSWERED: Readonly<Record<WebhookOutcome, CallOutcome>> = {
  RESPONDED: 'responded',
  SYNC_TIMEOUT: 'sync_timeout',
  FLOW_ENDED: 'flow_ended',
  INSTANT_RETURN: 'instant_return',
};

/** Codes that mean the call itself was refused (the facade answers 4xx); any other is a failure (5xx). */
const REFUSALS = new Set([
  Code.InvalidArgument,
  Code.NotFound,
  Code.AlreadyExists,
  Code.Unauthenticated,
  Code.PermissionDenied,
  Code.FailedPrecondition,
  Code.ResourceExhausted,
]);

/** The `limit` label of flowhook_engine_rate_limited_total: which limit refused (engine/domain/limits/webhook-limits.ts). */
export type RateLimitKind = LimitName;
const RATE_LIMIT_KINDS: readonly RateLimitKind[] = [
  'caller',
  'activity',
  'company',
  'global',
  'hook_route',
  'callbacks',
  'sync_calls',
  'flow_control_backlog',
];
/** waitForCallback deliveries: through a callback URL, or resumed by correlation key. */
export type CallbackRouteLabel = 'url' | 'key';
/**
 * accepted: the step took it; repeated: the accepted body again; used: another body after one was accepted (409);
 * not_found: no step waits (unknown, timed out, ended); invalid: a malformed request; refused: credentials or
 * rate limits (resume); failed: Temporal or PostgreSQL unavailable, or an internal error.
 */
export const CALLBACK_OUTCOMES = ['accepted', 'repeated', 'used', 'not_found', 'invalid', 'refused', 'failed'] as const;
export type CallbackOutcome = (typeof CALLBACK_OUTCOMES)[number];
/** The provider route's schemes as metric labels (engine/domain/direct/verification); anything else is `unknown`. */
/** Refused console sign-ins: a wrong admin token, or held back before any token was checked (engine/edges/console/sign-in-limiter.ts). */
export const SIGN_IN_REFUSALS = ['wrong_token', 'sender_backoff', 'deployment_budget'] as const;
export type SignInRefusal = (typeof SIGN_IN_REFUSALS)[number];
export const CACHE_NAMES = [
  'flows',
  'service_users',
  'applications',
  'service_accounts',
  'service_accounts_by_name',
  'hook_secrets',
  'execution_liveness',
] as const;

export interface EngineMetrics {
  registry: MetricsRegistry;
  /** One record per Invoke: labels fill in as the call is resolved. */
  webhookCall(): WebhookCallRecord;
  /** One record per InvokeDirect (provider route): by scheme and mode, not per flow — the route is reachable unauthenticated. */
  directCall(): DirectCallRecord;
  rateLimited(kind: RateLimitKind): void;
  /** Engines sharing the cluster-wide limits now, this one included (engine/domain/limits/engine-membership.ts). */
  liveEngines(count: number): void;
  /** Workers seen polling the flow task queue lately (engine/infrastructure/health/dependency-probes.ts). */
  workerPollers(count: number): void;
  /** For SnapshotCacheOptions.observeLookups: a counter bound to one cache. */
  cacheLookups(cache: string): (hit: boolean) => void;
  /** Temporal acknowledged a start (instant: the start call; sync: the start half of Update-With-Start). */
  startAcknowledged(mode: CallMode, seconds: number): void;
  /** One waitForCallback delivery as the engine decided it. */
  callback(route: CallbackRouteLabel, outcome: CallbackOutcome): void;
  /** The same for a delivery that ended in an error, by the Connect code it maps to. */
  callbackFailed(route: CallbackRouteLabel, error: unknown): void;
  /** What flow control did with an accepted call (published flows only: company and activity are bounded). */
  flowControlCall(company: string, activity: string, what: FlowControlCall): void;
  /** A console sign-in with an admin token was refused, and why. */
  consoleSignInRefused(reason: SignInRefusal): void;
  /** A sync call's wait on the webhookResponse update, by what ended it; `waiting` counts the calls in it now. */
  syncWait: { begin(): void; end(outcome: CallOutcome, seconds: number): void };
  /** What the retention purge deleted (engine/domain/retention/retention-metrics.ts). */
  retention: RetentionMetrics;
  /** What the delivery log stored and counted (engine/domain/deliveries/delivery-metrics.ts). */
  deliveries: DeliveryLogMetrics;
}

export interface WebhookCallRecord extends InvokeObserver {
  answered(outcome: WebhookOutcome): void;
  failed(error: unknown): void;
}

export interface DirectCallRecord {
  /** The flow was found and has a direct route with this scheme. */
  routeResolved(scheme: string, responseMode: string): void;
  answered(outcome: WebhookOutcome | 'url_verification'): void;
  failed(error: unknown): void;
}

export function createEngineMetrics(): EngineMetrics {
  const registry = createMetricsRegistry();
  const calls = webhookCallSeries(registry, 'engine', 'code', {
    calls:
      'Invoke calls by company, activity, mode, outcome and Connect code; "unknown" until the flow lookup found a published flow',
    duration: 'Invoke latency in the engine, from the request to the answer (sync calls include the sync window)',
  });
  // By company alone (not activity: a histogram's series are many), for the console's overview (call-minutes.ts).
  const answers = registry.histogram(
    ANSWER_METRIC,
    "Invoke latency by company, for calls resolved to a published flow (the console overview's p50/p95)",
    ['company'],
    CALL_SECONDS_BUCKETS,
  );
  const starts = registry.histogram(
    'flowhook_engine_temporal_start_duration_seconds',
    'Time until Temporal acknowledged an execution start (instant: workflow start; sync: the start of Update-With-Start)',
    ['mode'],
    CALL_SECONDS_BUCKETS,
  );
  const syncWaits = registry.histogram(
    'flowhook_engine_sync_wait_seconds',
    'Sync calls: time from sending Update-With-Start to the answer, by what ended the wait',
    ['outcome'],
    CALL_SECONDS_BUCKETS,
  );
  const waiting = registry.gauge('flowhook_engine_sync_calls_waiting', 'Sync calls waiting for their answer now');
  const live = registry.gauge(
    'flowhook_engine_live_engines',
    'Engines whose heartbeat is recent, this one included: each applies 1/N of the rate limits and the sync-call cap',
  );
  live.set(1);
  const pollers = registry.gauge(
    'flowhook_engine_worker_pollers',
    'Workers seen polling the flow task queue in the last 75 s; 0 means calls are accepted while no worker runs their executions (the engine is not ready then)',
  );
  const limited = registry.counter(
    'flowhook_engine_rate_limited_total',
    'Calls refused by admission control (429), by limit: caller, activity, company, global, hook_route (provider route, before verification), sync_calls, flow_control_backlog (too many executions wait at one flow-control gate)',
    ['limit'],
  );
  const directCalls = registry.counter(
    'flowhook_engine_direct_calls_total',
    'Provider-route (InvokeDirect) calls by verification scheme, mode, outcome and Connect code; scheme and mode "unknown" until the route was found',
    ['scheme', 'mode', 'outcome', 'code'],
  );
  const callbacks = registry.counter(
    'flowhook_engine_callbacks_total',
    'waitForCallback deliveries by route (url: a callback URL, key: flowWebhook_Resume) and outcome (accepted, repeated, used, not_found, invalid, refused, failed)',
    ['route', 'outcome'],
  );
  const lookups = registry.counter(
    'flowhook_engine_cache_lookups_total',
    'Webhook-path cache lookups by cache and result (hit, miss)',
    ['cache', 'result'],
  );
  const flowControl = registry.counter(
    'flowhook_engine_flow_control_calls_total',
    'Accepted calls flow control coalesced (debounce), batched, deduplicated (joined an execution by an idempotency key) or held (the flow was paused), by company and activity',
    ['company', 'activity', 'control'],
  );
  const signInRefusals = registry.counter(
    'flowhook_engine_console_sign_ins_refused_total',
    'Console sign-ins with an admin token refused: wrong_token, or held back unchecked after too many failures from the sender (sender_backoff) or from everyone (deployment_budget)',
    ['reason'],
  );
  const flows = new BoundedPairs(MAX_FLOW_SERIES);
  // Pre-bound and at 0 from the start, so rate() and alerts see the first refusal.
  for (const reason of SIGN_IN_REFUSALS) signInRefusals.get(reason).inc(0);
  for (const kind of RATE_LIMIT_KINDS) limited.get(kind).inc(0);
  const knownCaches = new Set<string>(CACHE_NAMES);
  for (const route of ['url', 'key'] as const)
    for (const outcome of CALLBACK_OUTCOMES) callbacks.get(route, outcome).inc(0);
  const callback = (route: CallbackRouteLabel, outcome: CallbackOutcome) => callbacks.get(route, outcome).inc();

  class CallRecord implements WebhookCallRecord {
    readonly #started = performance.now();
    #company: string = UNKNOWN;
    #activity: string = UNKNOWN;
    #mode: string = UNKNOWN;

    flowResolved(company: string, activity: string, responseMode: string): void {
      // Published flows only: the pair is bounded by what operators published (and capped).
      [this.#company, this.#activity] = flows.labels(company, activity);
      this.#mode = responseMode === 'WAIT_FOR_RESPONSE_STEP' ? 'sync' : 'instant';
    }

    answered(outcome: WebhookOutcome): void {
      this.#record(ANSWERED[outcome], 'ok');
    }

    failed(error: unknown): void {
      const code = engineCode(error);
      this.#record(REFUSALS.has(code) ? 'refused' : 'failed', codeLabel(code));
    }

    #record(outcome: CallOutcome, code: string): void {
      const seconds = (performance.now() - this.#started) / 1000;
      calls.record(this.#company, this.#activity, this.#mode, outcome, code, seconds);
      if (this.#company !== UNKNOWN) answers.get(this.#company).observe(seconds);
    }
  }

  class DirectRecord implements DirectCallRecord {
    #scheme: string = UNKNOWN;
    #mode: string = UNKNOWN;

    routeResolved(scheme: string, responseMode: string): void {
      this.#scheme = Object.hasOwn(DIRECT_SCHEMES, scheme) ? scheme : UNKNOWN;
      this.#mode = responseMode === 'WAIT_FOR_RESPONSE_STEP' ? 'sync' : 'instant';
    }

    answered(outcome: WebhookOutcome | 'url_verification'): void {
      directCalls
        .get(this.#scheme, this.#mode, outcome === 'url_verification' ? outcome : ANSWERED[outcome], 'ok')
        .inc();
    }

    failed(error: unknown): void {
      const code = engineCode(error);
      directCalls.get(this.#scheme, this.#mode, REFUSALS.has(code) ? 'refused' : 'failed', codeLabel(code)).inc();
    }
  }

  return {
    registry,
    retention: createRetentionMetrics(registry),
    deliveries: createDeliveryLogMetrics(registry),
    webhookCall: () => new CallRecord(),
    directCall: () => new DirectRecord(),
    rateLimited: (kind) => limited.get(kind).inc(),
    consoleSignInRefused: (reason) => signInRefusals.get(reason).inc(),
    liveEngines: (count) => live.set(count),
    workerPollers: (count) => pollers.set(count),
    callback,
    callbackFailed: (route, error) => callback(route, callbackOutcomeOf(engineCode(error))),
    cacheLookups(cache) {
      const name = knownCaches.has(cache) ? cache : OTHER;
      const hit = lookups.get(name, 'hit');
      const miss = lookups.get(name, 'miss');
      hit.inc(0);
      miss.inc(0);
      return (found) => (found ? hit : miss).inc();
    },
    startAcknowledged: (mode, seconds) => starts.get(mode).observe(seconds),
    flowControlCall(company, activity, what) {
      flowControl.get(...flows.labels(company, activity), what).inc();
    },
    syncWait: {
      begin: () => waiting.inc(),
      end(outcome, seconds) {
        waiting.dec();
        syncWaits.get(outcome).observe(seconds);
      },
    },
  };
}

function callbackOutcomeOf(code: Code): CallbackOutcome {
  if (code === Code.NotFound) return 'not_found';
  if (code === Code.FailedPrecondition) return 'used';
  if (code === Code.InvalidArgument) return 'invalid';
  return REFUSALS.has(code) ? 'refused' : 'failed';
}

/** `unauthenticated`, `not_found`, … (Connect's own code names); `ok` for an answered call. */
function codeLabel(code: Code): string {
  return (Code[code] ?? 'unknown').replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}
