// Step durations and results leave the workflow sandbox through a sink (the
// sandbox has no clocks or I/O of its own to measure with): the worker's side
// is workflows/metrics/worker-metrics.ts. Sink calls are not made during
// replay, so a step is counted once, when it actually ran. Durations are in
// workflow time: a set or log step takes 0 s, a sleep or an activity step as
// long as the execution waited for it.
import { proxySinks, type Sinks } from '@temporalio/workflow';

export type StepResult = 'completed' | 'skipped' | 'failed';

export interface StepMetricsSinks extends Sinks {
  flowhookSteps: {
    finished(kind: string, result: StepResult, seconds: number): void;
  };
}

const { flowhookSteps } = proxySinks<StepMetricsSinks>();

export function reportStep(kind: string, result: StepResult, startedAtMs: number): void {
  flowhookSteps.finished(kind, result, Math.max(0, Date.now() - startedAtMs) / 1000);
}
