// Bounds on a single formula evaluation. Formulas run inside the Temporal
// workflow sandbox where the clock is frozen during a workflow task, so
// JSONata's wall-clock `timeout` option would never fire. Everything here is
// counted instead, which also keeps failures deterministic on replay:
//  - depth: JSONata's own `stack` option (its frame counter, error D1011)
//    stops runaway non-tail recursion;
//  - steps: every call of JSONata's internal evaluate() is counted through
//    the `__evaluate_entry` hook; tail-recursive loops (which JSONata runs on
//    a trampoline, without growing depth) are stopped here. Calls made by
//    higher-order functions ($map, $sort, ...) are counted too (see
//    guarded-functions.ts): a native callback like `$map(xs, $string)`
//    never passes through evaluate();
//  - sequence length: JSONata's `sequence` option (error D2015) stops ranges
//    like [1..10000000] that allocate and loop natively in a single step;
//  - string length: every string result is checked, so repeated doubling
//    (`$s & $s`) stops before it eats the worker's memory; and the strings an
//    evaluation builds are added up, so many strings each just below the
//    single-string limit cannot eat it either;
//  - regular expressions: every search costs steps for the text it may scan
//    (linear-regex.ts), so many searches over a long text stop too.

import type jsonata from 'jsonata';
import { noteConstructed } from './exact-provenance.ts';
import { chargedRegexEngine, LinearRegex, type RegexEngineClass } from './linear-regex.ts';

export const MAX_DEPTH = 200;
export const MAX_STEPS = 200_000;
export const MAX_SEQUENCE_LENGTH = 200_000;
export const MAX_STRING_LENGTH = 10_000_000;
/**
 * Characters of new strings one evaluation may build, all strings together
 * (about 20 MB to 40 MB of memory). Twice the single-string limit, since
 * building a long string usually passes through a copy or two of it. New
 * strings are the results of `&`, of function calls and of the calls
 * higher-order functions make; values only handed on (payload fields,
 * variables, what a lambda returns unchanged) cost nothing. Ordinary
 * templates build a few kilobytes.
 */
export const MAX_STRING_CHARS_PER_EVALUATION = 20_000_000;

/**
 * Characters a regular expression search may scan for one step. One step of
 * the budget is a node JSONata evaluates; RE2 scans about this much text in
 * the same time, in the worst case (a pattern that keeps many threads alive).
 */
export const REGEX_CHARS_PER_STEP = 100;

/**
 * Options passed to jsonata() for every compiled formula. Regex literals run
 * on RE2; an evaluation with a budget gets an engine that charges it (onEntry).
 */
export const JSONATA_OPTIONS: jsonata.JsonataOptions = {
  stack: MAX_DEPTH,
  sequence: MAX_SEQUENCE_LENGTH,
  RegexEngine: LinearRegex as unknown as RegExpConstructor,
};

/** Counters for one evaluate() call; a compiled expression is shared, so they cannot live on it. */
export interface Budget {
  steps: number;
  /** Characters of new strings built so far, see MAX_STRING_CHARS_PER_EVALUATION. */
  stringChars: number;
  /**
   * The string the latest evaluated node returned if that node is a lambda
   * body, else undefined. A call returning this very value only hands on
   * what the body built (and was counted for), so it is not counted again.
   * Comparing by value is safe: between a body's exit and the end of the
   * call that ran it, no native code runs that builds a copy of the value.
   */
  handedOn?: string;
  /**
   * Set once the evaluation must stop (a limit was hit or a disabled function
   * was called); every later step fails too, so nothing can swallow it.
   */
  violation?: string;
}

/**
 * Binding name the budget travels under. JSONata names end at whitespace,
 * so no formula can refer to (and read) this binding.
 */
export const BUDGET_BINDING = 'flowhook budget';

const ENTRY_HOOK = Symbol.for('jsonata.__evaluate_entry');
const EXIT_HOOK = Symbol.for('jsonata.__evaluate_exit');

/** The parts of a JSONata syntax tree node the hooks look at. */
interface SyntaxNode {
  type: string;
  value?: unknown;
  body?: object;
}

/**
 * Body nodes of the lambdas evaluated so far. A syntax tree belongs to its
 * compiled expression and never changes, so membership is stable; the set
 * holds the nodes weakly and lets them go with the expression.
 */
const lambdaBodies = new WeakSet<object>();

/** A fresh budget, to pass in the evaluate() bindings under BUDGET_BINDING. */
export function newBudget(): Budget {
  return { steps: 0, stringChars: 0 };
}

/** Registers the step and string checks on a compiled expression. */
export function installLimits(expression: jsonata.Expression): void {
  // assign() is typed for string names, but JSONata looks its hooks up by symbol.
  const assign = expression.assign as (name: string | symbol, value: unknown) => void;
  assign(ENTRY_HOOK, onEntry);
  assign(EXIT_HOOK, onExit);
}

/** The budget of the evaluation an environment belongs to (none when evaluated without one). */
export function budgetOf(environment: jsonata.Environment): Budget | undefined {
  return environment.lookup(BUDGET_BINDING) as Budget | undefined;
}

/** Stops the evaluation; the first reason given sticks. */
export function refuse(budget: Budget | undefined, reason: string): never {
  if (!budget) throw new Error(reason);
  budget.violation ??= reason;
  throw new Error(budget.violation);
}

function onEntry(expr: SyntaxNode, _input: unknown, environment: jsonata.Environment): void {
  const budget = budgetOf(environment);
  if (!budget) return;
  chargeStep(budget);
  if (expr.type === 'lambda' && expr.body) lambdaBodies.add(expr.body);
  // JSONata builds a regex literal's engine from its evaluation's root frame
  // (`environment.base.RegexEngine`), right after this hook.
  if (expr.type === 'regex') (environment as EvaluationFrame).base.RegexEngine = regexEngineOf(budget);
}

/** The part of JSONata's frames the regex engine travels in. */
interface EvaluationFrame extends jsonata.Environment {
  base: { RegexEngine: unknown };
}

const regexEngines = new WeakMap<Budget, RegexEngineClass>();

/** The engine class whose searches charge `budget`, one per evaluation. */
function regexEngineOf(budget: Budget): RegexEngineClass {
  let engine = regexEngines.get(budget);
  if (!engine) {
    engine = chargedRegexEngine((characters) =>
      chargeSteps(budget, Math.ceil(characters / REGEX_CHARS_PER_STEP), REGEX_HINT),
    );
    regexEngines.set(budget, engine);
  }
  return engine;
}

function onExit(expr: SyntaxNode, input: unknown, environment: jsonata.Environment, result: unknown): void {
  // JSONata has one exit hook; the exact-spelling bookkeeping shares it (it counts nothing).
  noteConstructed(expr, input, result);
  const budget = budgetOf(environment);
  if (!budget) return;
  if (typeof result !== 'string') {
    budget.handedOn = undefined;
    return;
  }
  checkLength(budget, result);
  if (buildsString(expr) && result !== budget.handedOn) chargeString(budget, result);
  budget.handedOn = lambdaBodies.has(expr) ? result : undefined;
}

/**
 * Whether a node's string result may be new: `&` concatenates, and a call
 * may run a native function. Everything else (paths, variables, literals,
 * blocks, conditions) hands on a string that already exists.
 */
function buildsString(expr: SyntaxNode): boolean {
  return expr.type === 'function' || expr.type === 'apply' || (expr.type === 'binary' && expr.value === '&');
}

const STEP_HINT = 'endless loop or too much data?';
const REGEX_HINT = `regular expressions cost a step per ${REGEX_CHARS_PER_STEP} characters of text they search`;

function chargeStep(budget: Budget): void {
  chargeSteps(budget, 1, STEP_HINT);
}

function chargeSteps(budget: Budget, steps: number, hint: string): void {
  if (budget.violation) throw new Error(budget.violation);
  budget.steps += steps;
  if (budget.steps > MAX_STEPS) refuse(budget, `evaluation took more than ${MAX_STEPS} steps (${hint})`);
}

function checkLength(budget: Budget, text: string): void {
  if (text.length > MAX_STRING_LENGTH) refuse(budget, `a string grew beyond ${MAX_STRING_LENGTH} characters`);
}

function chargeString(budget: Budget, text: string): void {
  budget.stringChars += text.length;
  if (budget.stringChars > MAX_STRING_CHARS_PER_EVALUATION) {
    refuse(
      budget,
      `the strings built in one evaluation exceeded ${MAX_STRING_CHARS_PER_EVALUATION} characters in total`,
    );
  }
}

/** Anything JSONata can call from native code: a JS function or a lambda (which has its own apply). */
export interface Callable {
  apply(self: unknown, args: unknown[]): unknown;
}

/**
 * Calls `func` on behalf of a native higher-order function: the call costs
 * a step, and a string result counts as new unless a lambda body merely
 * handed it on (the body's own nodes were counted already).
 */
export async function callWithinBudget(
  budget: Budget | undefined,
  func: Callable,
  self: unknown,
  args: unknown[],
): Promise<unknown> {
  if (!budget) return func.apply(self, args);
  chargeStep(budget);
  // A native callback evaluates no node, so whatever was handed on before it is stale.
  budget.handedOn = undefined;
  const result = await func.apply(self, args);
  if (typeof result !== 'string') {
    budget.handedOn = undefined;
    return result;
  }
  checkLength(budget, result);
  if (result !== budget.handedOn) chargeString(budget, result);
  // Counted now; the higher-order function builds no strings itself, so if
  // its own call returns this value ($reduce does), that is no new string.
  budget.handedOn = result;
  return result;
}

/** The limit behind a JSONata error code, if it is one of ours. */
export function limitReason(code: string | undefined): string | undefined {
  if (code === 'D1011') return `recursion deeper than ${MAX_DEPTH} levels (endless recursion?)`;
  if (code === 'D2015') return `a sequence grew beyond ${MAX_SEQUENCE_LENGTH} items`;
  return undefined;
}
