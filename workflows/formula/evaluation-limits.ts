// Bounds on a single formula evaluation. Formulas run inside the Temporal
// workflow sandbox where the clock is frozen during a workflow task, so
// JSONata's wall-clock `timeout` option would never fire. Everything here is
// counted instead, which also keeps failures deterministic on replay:
//  - depth: JSONata's own `stack` option (its frame counter, error D1011)
//    stops runaway non-tail recursion;
//  - steps: every call of JSONata's internal evaluate() is counted through
//    the `__evaluate_entry` hook; tail-recursive loops (which JSONata runs on
//    a trampoline, without growing depth) are stopped here;
//  - sequence length: JSONata's `sequence` option (error D2015) stops ranges
//    like [1..10000000] that allocate and loop natively in a single step;
//  - string length: checked on every result through `__evaluate_exit`, so
//    repeated doubling (`$s & $s`) stops before it eats the worker's memory.

import type jsonata from 'jsonata';

export const MAX_DEPTH = 200;
export const MAX_STEPS = 200_000;
export const MAX_SEQUENCE_LENGTH = 200_000;
export const MAX_STRING_LENGTH = 10_000_000;

/** Options passed to jsonata() for every compiled formula. */
export const JSONATA_OPTIONS: jsonata.JsonataOptions = { stack: MAX_DEPTH, sequence: MAX_SEQUENCE_LENGTH };

/** Counters for one evaluate() call; a compiled expression is shared, so they cannot live on it. */
export interface Budget {
  steps: number;
  /** Set once a limit is hit; every later step fails too, so no JSONata catch can swallow it. */
  violation?: string;
}

/**
 * Binding name the budget travels under. JSONata names end at whitespace,
 * so no formula can refer to (and read) this binding.
 */
export const BUDGET_BINDING = 'flowhook budget';

const ENTRY_HOOK = Symbol.for('jsonata.__evaluate_entry');
const EXIT_HOOK = Symbol.for('jsonata.__evaluate_exit');

/** A fresh budget, to pass in the evaluate() bindings under BUDGET_BINDING. */
export function newBudget(): Budget {
  return { steps: 0 };
}

/** Registers the step and string-length checks on a compiled expression. */
export function installLimits(expression: jsonata.Expression): void {
  // assign() is typed for string names, but JSONata looks its hooks up by symbol.
  const assign = expression.assign as (name: string | symbol, value: unknown) => void;
  assign(ENTRY_HOOK, onEntry);
  assign(EXIT_HOOK, onExit);
}

function onEntry(_expr: unknown, _input: unknown, environment: jsonata.Environment): void {
  const budget = budgetOf(environment);
  if (!budget) return;
  budget.steps++;
  if (budget.steps > MAX_STEPS && !budget.violation) {
    budget.violation = `evaluation took more than ${MAX_STEPS} steps (endless loop or too much data?)`;
  }
  if (budget.violation) throw new Error(budget.violation);
}

function onExit(_expr: unknown, _input: unknown, environment: jsonata.Environment, result: unknown): void {
  if (typeof result !== 'string' || result.length <= MAX_STRING_LENGTH) return;
  const budget = budgetOf(environment);
  if (!budget) return;
  budget.violation ??= `a string grew beyond ${MAX_STRING_LENGTH} characters`;
  throw new Error(budget.violation);
}

function budgetOf(environment: jsonata.Environment): Budget | undefined {
  return environment.lookup(BUDGET_BINDING) as Budget | undefined;
}

/** The limit behind a JSONata error code, if it is one of ours. */
export function limitReason(code: string | undefined): string | undefined {
  if (code === 'D1011') return `recursion deeper than ${MAX_DEPTH} levels (endless recursion?)`;
  if (code === 'D2015') return `a sequence grew beyond ${MAX_SEQUENCE_LENGTH} items`;
  return undefined;
}
