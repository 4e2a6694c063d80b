// Runs a list of steps in order, recording each in the execution log. A step
// that throws ends the flow: its failure names the step. A step's kind and
// body are the flow model's (flow/steps/step-registry.ts); what it does is its
// runner's (workflows/steps/runner-registry.ts). This side of the interpreter
// hands the runners the workflow's timers, activity proxies and current
// details, which they do not import themselves (workflows/steps/step-runner.ts).
import { ActivityFailure, condition, proxyActivities, sleep } from '@temporalio/workflow';
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FlowActivities } from '../activities/index.ts';
import { FormulaError } from '../../flow/formula/index.ts';
import { stepBody, stepKind } from '../../flow/steps/step-registry.ts';
import { stepRunner } from '../steps/runner-registry.ts';
import type { StepServices } from '../steps/step-runner.ts';
import type { FlowRuntime } from '../steps/flow-runtime.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import { showStep } from './current-details.ts';
import { reportStep } from './step-metrics.ts';

const services: StepServices = {
  sleep: (ms, options) => sleep(ms, options),
  waitFor: (predicate, ms, options) => condition(predicate, ms, options),
  activities: (options) => proxyActivities<FlowActivities>(options),
  showStep,
  runSteps,
};

export async function runSteps(steps: StepJson[], path: string, runtime: FlowRuntime): Promise<void> {
  for (const [index, step] of steps.entries()) {
    const at = `${path}[${index}]`;
    const kind = stepKind(step);
    if (!kind) throw new StepFailure(`${at} has no step type`);
    const description = stepBody(step, kind).description ?? '';
    const label = `${at} ${kind}${description ? ` "${description}"` : ''}`;
    const startedAtMs = Date.now();
    const entry = {
      path: at,
      type: kind,
      name: step.name ?? '',
      description,
      startedAt: new Date(startedAtMs).toISOString(),
    };
    const position = { index: index + 1, count: steps.length, path: at, kind, description };
    showStep(position);
    try {
      const result = await stepRunner(kind).run(stepBody(step, kind), {
        at,
        label,
        name: step.name,
        runtime,
        services,
        position,
      });
      if (step.name) runtime.context.Steps[step.name] = result.output;
      runtime.log.record(entry, result.skipped ? 'skipped' : 'completed', result.note);
      reportStep(kind, result.skipped ? 'skipped' : 'completed', startedAtMs);
    } catch (error) {
      const failure = asStepFailure(error, label);
      failure.publicMessage ??= `${label} failed (the reason is in the execution log)`;
      runtime.log.record(entry, 'failed', failure.message);
      reportStep(kind, 'failed', startedAtMs);
      throw failure;
    }
  }
}

function asStepFailure(error: unknown, label: string): StepFailure {
  if (error instanceof StepFailure) return error;
  if (error instanceof FormulaError) return new StepFailure(`${label} failed: ${error.message}`);
  if (error instanceof ActivityFailure) {
    const cause = error.cause instanceof Error ? error.cause.message : 'activity failed';
    return new StepFailure(`${label} failed: ${cause}`);
  }
  if (error instanceof Error) return new StepFailure(`${label} failed: ${error.message}`);
  return new StepFailure(`${label} failed`);
}
