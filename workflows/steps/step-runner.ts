// How one step kind runs: the contract every runner in this folder fulfils
// and the runner registry (runner-registry.ts) lists. What a kind is — its
// checks, whether it responds or defers, its branches — is its model's
// (flow/steps/); a runner only runs a body that publishing has checked.
// Runners never import '@temporalio/workflow': whatever touches workflow
// state (timers, activities, current details) is handed in through
// StepServices by the interpreter (workflows/interpreter/run-steps.ts), so
// a runner can be run with faked services, and imports nothing of the
// interpreter: the interpreter imports the steps, never the other way round.
import type { ActivityOptions } from '@temporalio/common';
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FlowActivities } from '../activities/index.ts';
import type { StepBody, StepCase } from '../../flow/steps/step-model.ts';
import type { FlowRuntime } from './flow-runtime.ts';

/** Where a step stands, for the current details the Temporal UI shows (interpreter/current-details.ts). */
export interface StepPosition {
  /** 1-based position in its list, and the list's length. */
  index: number;
  count: number;
  /** e.g. `steps[2].if.then[0]`. */
  path: string;
  kind: string;
  description: string;
}

/** The workflow facilities a running step may use, handed in so runners stay sandbox-free. */
export interface StepServices {
  /** A durable timer (workflow `sleep`); the summary names it in the Temporal UI. */
  sleep(ms: number, options: { summary: string }): Promise<void>;
  /**
   * Waits until `predicate` holds (re-checked as workflow state changes, e.g. by an update) or `ms`
   * pass (workflow `condition`, whose timer gets the summary); true when the predicate held.
   */
  waitFor(predicate: () => boolean, ms: number, options: { summary: string }): Promise<boolean>;
  /** An activity proxy (workflow `proxyActivities`): one per call, so each step keeps its own options. */
  activities(options: ActivityOptions): Pick<FlowActivities, 'httpRequest' | 'record' | 'registerCallbackKey'>;
  /** The execution's current details in the Temporal UI (interpreter/current-details.ts). */
  showStep(position: StepPosition, waitingFor?: string): void;
  /** Runs a nested step list, logging each step like the flow's own. */
  runSteps(steps: StepJson[], path: string, runtime: FlowRuntime): Promise<void>;
}

export interface StepCall {
  /** e.g. `steps[2]` or `steps[0].if.then[1]`. */
  at: string;
  /** How failures and summaries name the step: `steps[2] sleep "Let it settle"`. */
  label: string;
  /** The step's `name`, when it has one. */
  name?: string;
  runtime: FlowRuntime;
  services: StepServices;
  /** Where the step stands, for the current details. */
  position?: StepPosition;
}

export interface StepResult {
  output: unknown;
  skipped?: boolean;
  note?: string;
}

export interface StepRunner<K extends StepCase> {
  readonly kind: K;
  run(body: StepBody<K>, call: StepCall): Promise<StepResult>;
}
