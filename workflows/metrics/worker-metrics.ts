// The worker's Prometheus metrics: flow steps by kind (from the workflow's
// sink, interpreter/step-metrics.ts), outbound HTTP by status (around the
// httpRequest activity), and whether the worker is ready. One instance per
// worker (runWorker), in its own registry; the Temporal SDK's own metrics are
// appended when served (sdk-metrics.ts).
import { ApplicationFailure } from '@temporalio/activity';
import type { InjectedSinks } from '@temporalio/worker';
import { Counter, Gauge, Histogram } from 'prom-client';
import { BoundChildren, BoundedValues, closedValues, OTHER, statusLabel } from '../../common/metrics/label-values.ts';
import { MAX_FLOW_SERIES } from '../../common/metrics/call-labels.ts';
import { CALL_SECONDS_BUCKETS, createMetricsRegistry, STEP_SECONDS_BUCKETS, type MetricsRegistry } from '../../common/metrics/metrics-registry.ts';
import type { HttpRequestInput, HttpRequestOutput } from '../activities/index.ts';
import type { StepMetricsSinks, StepResult } from '../interpreter/step-metrics.ts';
import type { FlowControlSinks } from '../control/flow-control-metrics.ts';
import { STEP_KINDS } from '../shared/index.ts';

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
  const registers = [registry.registry];
  const steps = new Counter({
    name: 'flowhook_worker_steps_total',
    help: 'Flow steps run, by step kind and result (completed, skipped, failed)',
    labelNames: ['kind', 'result'],
    registers,
  });
  const stepSeconds = new Histogram({
    name: 'flowhook_worker_step_duration_seconds',
    help: 'Flow step duration in workflow time, by step kind (sleeps and activity steps include their waits and retries)',
    labelNames: ['kind'],
    buckets: STEP_SECONDS_BUCKETS,
    registers,
  });
  const outbound = new Counter({
    name: 'flowhook_worker_outbound_requests_total',
    help: 'Outbound HTTP attempts of httpRequest steps, by response status, or "error" (network, timeout) / "refused" (egress policy, limits)',
    labelNames: ['status'],
    registers,
  });
  const outboundSeconds = new Histogram({
    name: 'flowhook_worker_outbound_request_duration_seconds',
    help: 'Outbound HTTP attempt duration, by result (answered, error, refused)',
    labelNames: ['result'],
    buckets: CALL_SECONDS_BUCKETS,
    registers,
  });
  const queued = new Counter({
    name: 'flowhook_worker_flow_control_queued_total',
    help: 'Executions that waited behind others for a concurrency slot or a throttled start, by company, flow and gate (concurrency, throttle)',
    labelNames: ['company', 'flow', 'gate'],
    registers,
  });
  const ready = new Gauge({ name: 'flowhook_worker_ready', help: '1 when the last readiness check passed (polling, Temporal and the engine reachable)', registers });

  const kindOf = closedValues(STEP_KINDS);
  const resultOf = closedValues(STEP_RESULTS);
  const stepChildren = new BoundChildren((kind, result) => steps.labels(kind!, result!));
  const stepSecondsChildren = new BoundChildren((kind) => stepSeconds.labels(kind!));
  const outboundChildren = new BoundChildren((status) => outbound.labels(status!));
  const outboundSecondsChildren = { answered: outboundSeconds.labels('answered'), error: outboundSeconds.labels('error'), refused: outboundSeconds.labels('refused') };
  const gateOf = closedValues(QUEUEING_GATES);
  const flows = new BoundedValues(MAX_FLOW_SERIES);
  const queuedChildren = new BoundChildren((company, flow, gate) => queued.labels(company!, flow!, gate!));
  // Every kind's series exists from the start at 0, so rate() and alerts see the first failure.
  for (const kind of STEP_KINDS) for (const result of STEP_RESULTS) stepChildren.get(kind, result).inc(0);

  return {
    registry,
    sinks: {
      flowhookSteps: {
        finished: {
          // The arguments come from the workflow sandbox: kinds and results are checked against their closed sets.
          fn(_info, kind, result, seconds) {
            const kindLabel = kindOf(kind);
            stepChildren.get(kindLabel, resultOf(result)).inc();
            if (Number.isFinite(seconds) && seconds >= 0) stepSecondsChildren.get(kindLabel).observe(seconds);
          },
          callDuringReplay: false,
        },
      },
      flowhookFlowControl: {
        gatePassed: {
          // Published flows' names only (the workflow's input), capped like the engine's flow labels.
          fn(_info, company, flowName, gate, wasQueued) {
            if (!wasQueued || gate === 'pause') return;
            const pair = flows.value(`${company}\u0000${flowName}`);
            const [companyLabel, flowLabel] = pair === OTHER ? [OTHER, OTHER] : [company, flowName];
            queuedChildren.get(companyLabel, flowLabel, gateOf(gate)).inc();
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
          outboundChildren.get(statusLabel(output.status)).inc();
          outboundSecondsChildren.answered.observe(seconds());
          return output;
        } catch (error) {
          // Refusals are non-retryable (the activity's own rule); everything else is a failed attempt.
          const result = error instanceof ApplicationFailure && error.nonRetryable ? 'refused' : 'error';
          outboundChildren.get(result).inc();
          outboundSecondsChildren[result].observe(seconds());
          throw error;
        }
      };
    },
    setReady: (isReady) => ready.set(isReady ? 1 : 0),
  };
}
