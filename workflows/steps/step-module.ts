// What one step kind is: the contract every module in this folder fulfils and
// the registry (step-registry.ts) lists. A kind brings its publish-time checks,
// its place in the deferral walk, the nested step lists it holds and how it
// runs. Step modules never import '@temporalio/workflow': the engine loads
// them to validate flows outside the workflow sandbox, so whatever touches
// workflow state (timers, activities, current details) is handed in through
// StepServices by the interpreter (workflows/interpreter/run-steps.ts).
import type { ActivityOptions } from '@temporalio/common';
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FlowActivities } from '../activities/index.ts';
import type { FormulaScope } from '../formula/index.ts';
import type { FlowLimits } from '../../common/flow-limits.ts';
import type { StepPosition } from '../interpreter/current-details.ts';
import type { FlowRuntime } from '../interpreter/flow-runtime.ts';

/** The proto `Step` oneof's cases, in their JSON spelling: every member of StepJson but `name`. */
export type StepCase = Exclude<keyof StepJson, 'name'>;

/** The body of one step kind, e.g. SleepStepJson for 'sleep'. */
export type StepBody<K extends StepCase> = NonNullable<StepJson[K]>;

/** What a kind's validate() may use; problems name fields under the `at` it is given. */
export interface StepValidation {
  readonly errors: string[];
  readonly limits: FlowLimits;
  readonly scope: FormulaScope;
  /** Validates a nested step list (an if's then/else) as the flow's own steps are. */
  validateSteps(steps: StepJson[], path: string): void;
}

/** The workflow facilities a running step may use, handed in so step modules stay sandbox-free. */
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
  /** The execution's current details in the Temporal UI (current-details.ts). */
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

/** A nested list of steps, named as the flow file spells its field (`then`, `else`). */
export interface StepBranch {
  name: string;
  steps: StepJson[];
}

export interface StepModule<K extends StepCase> {
  readonly kind: K;
  /**
   * Publish-time problems, pushed to `check.errors` in the order the fields appear. `name` is the
   * step's own `name` (flow-validation.ts checks its spelling), for kinds found by it.
   */
  validate(body: StepBody<K>, at: string, check: StepValidation, name: string | undefined): void;
  /** Answers a waiting caller (WAIT_FOR_RESPONSE_STEP). */
  readonly responds?: boolean;
  /** Pauses the execution: reached before a respond step while the caller waits, it fails the call. */
  readonly defers?: boolean;
  /** Nested step lists, in the order they are validated and walked. */
  branches?(body: StepBody<K>): StepBranch[];
  /** Variables the step sets, so reads of variables nothing sets can be warned about. */
  variablesSet?(body: StepBody<K>): string[];
  /** The connection the step names (field `connection`), which publishing requires to exist. */
  connection?(body: StepBody<K>): string | undefined;
  run(body: StepBody<K>, call: StepCall): Promise<StepResult>;
}
