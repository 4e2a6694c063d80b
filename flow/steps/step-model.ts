// What one step kind is to the flow model: the contract every model in this
// folder fulfils and the registry (step-registry.ts) lists. A kind brings its
// publish-time checks, its place in the deferral walk, the nested step lists
// it holds, the variables it sets and the connection it names. How it runs is
// its runner's (workflows/steps/, the StepRunner contract): the model is pure,
// so the engine validates flows without loading any workflow code, and the
// runners build on the model, never the other way round.
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FormulaScope } from '../formula/index.ts';
import type { FlowLimits } from '../../common/flow-limits.ts';

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

/** A nested list of steps, named as the flow file spells its field (`then`, `else`). */
export interface StepBranch {
  name: string;
  steps: StepJson[];
}

export interface StepModel<K extends StepCase> {
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
}
