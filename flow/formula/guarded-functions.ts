// Replacements for JSONata built-ins that would otherwise slip past the
// evaluation limits. They are registered on every compiled expression, where
// they shadow the built-ins of the same name.
//  - $map, $filter, $reduce, $sort, $each, $single and $sift call their
//    function argument from native code. When that argument is itself native
//    (`$map(xs, $string)`), nothing passes through JSONata's evaluate(), so
//    the step and string hooks never see the work. The replacements wrap the
//    function argument so every call is charged, then hand over to JSONata's
//    own implementation, so results stay exactly the same.
//  - $eval is refused: it would run a payload string as a formula, and values
//    from the payload are data, never formulas.
//  - $toMillis with a picture runs a backtracking regular expression built
//    from the picture on the timestamp: what would make it super-linear is
//    refused first (timestamp-picture.ts).

import jsonata from 'jsonata';
import { budgetOf, callWithinBudget, refuse } from './evaluation-limits.ts';
import type { Callable } from './evaluation-limits.ts';
import { pictureParseProblem } from './timestamp-picture.ts';

export const EVAL_DISABLED = '$eval is disabled in flowhook formulas (payload values are data, never formulas)';

type Native = (this: jsonata.Focus, ...args: unknown[]) => unknown;

/** The higher-order built-ins and their JSONata 2.2 signatures, kept so argument checks stay the same. */
const HIGHER_ORDER = {
  map: '<af>',
  filter: '<af>',
  reduce: '<afj?:j>',
  sort: '<af?:a>',
  each: '<o-f:a>',
  single: '<af?>',
  sift: '<o-f?:o>',
} as const;

type HigherOrderName = keyof typeof HIGHER_ORDER;

/** The built-ins whose function-argument calls are charged to the step budget (the formula reference lists them). */
export const CHARGED_FUNCTIONS: readonly string[] = Object.keys(HIGHER_ORDER);

/** Registers the charged higher-order functions and the refusing $eval on a compiled expression. */
export function installGuardedFunctions(expression: jsonata.Expression): void {
  for (const name of Object.keys(HIGHER_ORDER) as HigherOrderName[]) {
    expression.registerFunction(name, REPLACEMENTS[name], HIGHER_ORDER[name]);
  }
  // No signature: any call at all, whatever its arguments, gets the same answer.
  expression.registerFunction('eval', evalDisabled);
  expression.registerFunction('toMillis', toMillis, TO_MILLIS_SIGNATURE);
}

/** JSONata 2.2's signature of $toMillis. */
const TO_MILLIS_SIGNATURE = '<s-s?:n>';

async function toMillis(this: jsonata.Focus, timestamp: unknown, picture: unknown) {
  if (typeof timestamp === 'string' && typeof picture === 'string') {
    const problem = pictureParseProblem(timestamp, picture);
    if (problem) refuse(budgetOf(this.environment), problem);
  }
  return (await builtin('toMillis')).call(this, timestamp, picture);
}

function evalDisabled(this: jsonata.Focus): never {
  refuse(budgetOf(this.environment), EVAL_DISABLED);
}

// The replacements keep the built-ins' parameter names and counts: JSONata
// reads a native's parameter list from its source text when it is partially
// applied (`$map(?, $string)`), and its length is the arity other
// higher-order functions see. Type annotations are erased, so only the names remain.
const REPLACEMENTS: Record<HigherOrderName, Native> = {
  map: async function map(this: jsonata.Focus, arr: unknown, func: unknown) {
    return (await builtin('map')).call(this, arr, charged(this, func));
  },
  filter: async function filter(this: jsonata.Focus, arr: unknown, func: unknown) {
    return (await builtin('filter')).call(this, arr, charged(this, func));
  },
  reduce: async function foldLeft(this: jsonata.Focus, sequence: unknown, func: unknown, init: unknown) {
    return (await builtin('reduce')).call(this, sequence, charged(this, func), init);
  },
  sort: async function sort(this: jsonata.Focus, arr: unknown, comparator: unknown) {
    return (await builtin('sort')).call(this, arr, charged(this, comparator ?? defaultOrder(arr)));
  },
  each: async function each(this: jsonata.Focus, obj: unknown, func: unknown) {
    return (await builtin('each')).call(this, obj, charged(this, func));
  },
  single: async function single(this: jsonata.Focus, arr: unknown, func: unknown) {
    return (await builtin('single')).call(this, arr, charged(this, func));
  },
  sift: async function sift(this: jsonata.Focus, arg: unknown, func: unknown) {
    return (await builtin('sift')).call(this, arg, charged(this, func));
  },
};

/** What JSONata's getFunctionArity reads, on the kinds of function JSONata passes around. */
interface FunctionLike extends Callable {
  arity?: unknown;
  implementation?: unknown;
  length?: unknown;
  arguments?: unknown[];
}

/**
 * The function argument wrapped so each call is charged to the budget.
 * Anything that is not callable (an absent optional argument, or a
 * definition JSONata itself cannot call) goes to the built-in unchanged,
 * so it fails or is skipped exactly as before.
 */
function charged(focus: jsonata.Focus, func: unknown): unknown {
  if (!isCallable(func)) return func;
  const budget = budgetOf(focus.environment);
  const wrapper = function (this: unknown, ...args: unknown[]) {
    return callWithinBudget(budget, func, this, args);
  };
  // Built-ins decide how many arguments to pass (value, index, array) from the arity.
  return Object.assign(wrapper, { arity: arityOf(func) });
}

function isCallable(func: unknown): func is FunctionLike {
  return (
    (typeof func === 'function' || (typeof func === 'object' && func !== null)) &&
    typeof (func as FunctionLike).apply === 'function'
  );
}

/** The arity JSONata would see on `func`, in the same order of preference as its getFunctionArity. */
function arityOf(func: FunctionLike): number {
  if (typeof func.arity === 'number') return func.arity;
  if (typeof func.implementation === 'function') return func.implementation.length;
  if (typeof func.length === 'number') return func.length;
  return func.arguments?.length ?? 0;
}

/**
 * JSONata's default order for `$sort(xs)` (`a > b`) as a comparator, so that
 * its comparisons are charged like a lambda's: without it one call sorts up to
 * MAX_SEQUENCE_LENGTH items for free (and the built-in merge sort needs
 * quadratic memory). Arrays the default order does not accept get none, so
 * the built-in rejects them with its usual error.
 */
function defaultOrder(arr: unknown): ((a: unknown, b: unknown) => Promise<boolean>) | undefined {
  const sortable = Array.isArray(arr) && (arr.every(isFiniteNumber) || arr.every((item) => typeof item === 'string'));
  return sortable ? greaterThan : undefined;
}

async function greaterThan(a: unknown, b: unknown): Promise<boolean> {
  return (a as number | string) > (b as number | string);
}

function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The built-ins replaced here. */
type ReplacedName = HigherOrderName | 'toMillis';

/** JSONata's own implementations, looked up once. */
let builtins: Record<ReplacedName, Native> | undefined;

async function builtin(name: ReplacedName): Promise<Native> {
  builtins ??= await loadBuiltins();
  return builtins[name];
}

/**
 * JSONata does not export its built-ins, but a fresh expression (with no
 * replacements registered) still sees them, and returns their definitions.
 */
async function loadBuiltins(): Promise<Record<ReplacedName, Native>> {
  const names: ReplacedName[] = [...(Object.keys(HIGHER_ORDER) as HigherOrderName[]), 'toMillis'];
  const listing = jsonata(`[${names.map((name) => `$${name}`).join(', ')}]`);
  const definitions = (await listing.evaluate(null)) as { implementation: Native }[];
  return Object.fromEntries(names.map((name, index) => [name, definitions[index]!.implementation])) as Record<
    ReplacedName,
    Native
  >;
}
