// The worker's Prometheus metrics: flow steps by kind (from the workflow's
// sink, interpreter/step-metrics.ts), outbound HTTP by status (around the
// httpRequest activity), and whether the worker is ready. One instance per
// worker (runWorker), in its own registry; the Temporal SDK's own metrics are
// appended when served (sdk-metrics.ts).
import { ApplicationFailure } from '@temporalio/activity';
import type { InjectedSinks } from '@temporalio/worker';
import { BoundedPairs, closedValues, statusLabel } from '../../common/metrics/label-values.ts';
import { MAX_FLOW_SERIES } from '../../common/metrics/call-labels.ts';
import {
  CALL_SECONDS_BUCKETS,
  createMetricsRegistry,
  STEP_SECONDS_BUCKETS,
  type MetricsRegistry,
} from '../../common/metrics/metrics-registry.ts';
import type { HttpRequestInput, HttpRequestOutput } from '../activities/index.ts';
import type { StepMetricsSinks, StepResult } from '../interpreter/step-metrics.ts';
import type { FlowControlSinks } from '../flow-control/flow-control-metrics.ts';
import { STEP_KINDS } from '../../flow/index.ts';

export interface WorkerMetrics {
  registry: MetricsRegistry;
  /** For Worker.create({ sinks }): where the workflow reports its steps and the flow-control gates it passed. */
  sinks: InjectedSinks<StepMetricsSinks & FlowControlSinks>;
  /** Wraps the httpRequest activity: one count per attempt, by the status it got (or error / refused). */
  outbound(activity: HttpRequestActivity): HttpRequestActivity;
  /** 1 while the readiness probe last found the worker ready. */
  setReady(ready: boolean): void;
}

type HttpRequestActivity = (input: HttpRequestInput) => Promise<HttpRequestOutput>;

const STEP_RESULTS: readonly StepResult[] = ['completed', 'skipped', 'failed'];
/** Gates at which an execution can wait behind others (a pause gate's wait is counted by the engine, as held calls). */
const QUEUEING_GATES = ['concurrency', 'throttle'] as const;

export function createWorkerMetrics(): WorkerMetrics {
  const registry = createMetricsRegistry();
  const steps = registry.counter(
    'flowhook_worker_steps_total',
    'Flow steps run, by step kind and result (completed, skipped, failed)',
    ['kind', 'result'],
  );
  const stepSeconds = registry.histogram(
    'flowhook_worker_step_duration_seconds',
    'Flow step duration in workflow time, by step kind (sleeps and activity steps include their waits and retries)',
    ['kind'],
    STEP_SECONDS_BUCKETS,
  );
  const outbound = registry.counter(
    'flowhook_worker_outbound_requests_total',
    'Outbound HTTP attempts of httpRequest steps, by response status, or "error" (network, timeout) / "refused" (egress policy, limits)',
    ['status'],
  );
  const outboundSeconds = registry.histogram(
    'flowhook_worker_outbound_request_duration_seconds',
    'Outbound HTTP attempt duration, by result (answered, error, refused)',
    ['result'],
    CALL_SECONDS_BUCKETS,
  );
  const queued = registry.counter(
    'flowhook_worker_flow_control_queued_total',
    'Executions that waited behind others for a concurrency slot or a throttled start, by company, flow and gate (concurrency, throttle)',
    ['company', 'flow', 'gate'],
  );
  const ready = registry.gauge(
    'flowhook_worker_ready',
    '1 when the last readiness check passed (polling, Temporal and the engine reachable)',
  );

  const kindOf = closedValues(STEP_KINDS);
  const resultOf = closedValues(STEP_RESULTS);
  const gateOf = closedValues(QUEUEING_GATES);
  const flows = new BoundedPairs(MAX_FLOW_SERIES);
  // Every kind's series exists from the start at 0, so rate() and alerts see the first failure.
  for (const kind of STEP_KINDS) for (const result of STEP_RESULTS) steps.get(kind, result).inc(0);

  return {
    registry,
    sinks: {
      flowhookSteps: {
        finished: {
          // The arguments come from the workflow sandbox: kinds and results are checked against their closed sets.
          fn(_info, kind, result, seconds) {
            const kindLabel = kindOf(kind);
            steps.get(kindLabel, resultOf(result)).inc();
            if (Number.isFinite(seconds) && seconds >= 0) stepSeconds.get(kindLabel).observe(seconds);
          },
          callDuringReplay: false,
        },
      },
      flowhookFlowControl: {
        gatePassed: {
          // Published flows' names only (the workflow's input), capped like the engine's flow labels.
          fn(_info, company, flowName, gate, wasQueued) {
            if (!wasQueued || gate === 'pause') return;
            queued.get(...flows.labels(company, flowName), gateOf(gate)).inc();
          },
          callDuringReplay: false,
        },
      },
    },
    outbound(activity) {
      return async function httpRequest(input) {
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const output = await activity(input);
          outbound.get(statusLabel(output.status)).inc();
          outboundSeconds.get('answered').observe(seconds());
          return output;
        } catch (error) {
          // Refusals are non-retryable (the activity's own rule); everything else is a failed attempt.
          const result = error instanceof ApplicationFailure && error.nonRetryable ? 'refused' : 'error';
          outbound.get(result).inc();
          outboundSeconds.get(result).observe(seconds());
          throw error;
        }
      };
    },
    setReady: (isReady) => ready.set(isReady ? 1 : 0),
  };
}
