// Where a number in a formula's result came from. Numbers have no identity,
// so exact-source.ts keeps a spelling on the object holding the number; a
// formula that hands a payload number on builds a new holder, or none. Two
// shapes are recognised, both by their syntax alone, so an unchanged number
// keeps its spelling and a computed one never gets one:
//  - the whole formula is a plain member path (`Trigger.Payload.amount`);
//  - a member of an object constructor or an item of an array constructor is
//    one (`{"amount": Trigger.Payload.amount}`, `[Trigger.Payload.amount]`):
//    the constructed holder gets the spelling under the same member or index.
// A plain path is member names, each optionally followed by literal indexes
// (`lines[0]`): no other filters, no wildcards or variables, whose sequence
// semantics a hand lookup would not follow. Whatever the lookup finds must
// also be the very number the formula returned, so a path JSONata reads
// differently (an index on a non-array) gets no spelling rather than a wrong one.

import { rememberSpelling, spellingOf } from './exact-source.ts';
import type { PathSegment } from '../field-path.ts';

/** The parts of a JSONata syntax tree node looked at here. */
export interface SyntaxNode {
  type: string;
  value?: unknown;
  steps?: SyntaxNode[];
  stages?: SyntaxNode[];
  expr?: SyntaxNode;
  lhs?: [SyntaxNode, SyntaxNode][];
  expressions?: SyntaxNode[];
}

/** Keys a plain member step or path node carries; anything more (stages, predicate, group, …) changes its meaning. */
const NAME_KEYS = new Set(['type', 'value', 'position', 'stages']);
const PATH_KEYS = new Set(['type', 'steps']);
const FILTER_KEYS = new Set(['type', 'expr', 'position']);
const LITERAL_KEYS = new Set(['type', 'value', 'position']);

const plainPaths = new WeakMap<object, readonly PathSegment[] | null>();

/** The steps of a plain path node, or undefined for any other node. Syntax trees never change, so the answer is kept. */
export function plainPathNames(node: SyntaxNode): readonly PathSegment[] | undefined {
  let names = plainPaths.get(node);
  if (names === undefined) {
    names = readPlainPath(node);
    plainPaths.set(node, names);
  }
  return names ?? undefined;
}

function readPlainPath(node: SyntaxNode): readonly PathSegment[] | null {
  if (node.type !== 'path' || !node.steps?.length || !hasOnly(node, PATH_KEYS)) return null;
  const steps: PathSegment[] = [];
  for (const step of node.steps) {
    if (step.type !== 'name' || typeof step.value !== 'string' || !hasOnly(step, NAME_KEYS)) return null;
    steps.push(step.value);
    for (const stage of step.stages ?? []) {
      const index = stage.expr;
      if (
        stage.type !== 'filter' ||
        !hasOnly(stage, FILTER_KEYS) ||
        index?.type !== 'number' ||
        !hasOnly(index, LITERAL_KEYS)
      )
        return null;
      // A negative index counts from the end and a fraction is floored: not followed, so not spelled.
      if (!Number.isInteger(index.value) || (index.value as number) < 0) return null;
      steps.push(index.value as number);
    }
  }
  return steps;
}

function hasOnly(node: object, keys: ReadonlySet<string>): boolean {
  return Object.keys(node).every((key) => keys.has(key));
}

/**
 * The kept spelling of the number a plain path reads from `input`, if that
 * number is `value`. Arrays on the way are not looked into: JSONata would map
 * over them, and the result would be a new sequence.
 */
export function spellingAt(input: unknown, steps: readonly PathSegment[], value: number): string | undefined {
  let holder: unknown = input;
  for (let i = 0; i < steps.length - 1; i++) holder = member(holder, steps[i]!);
  const last = steps.at(-1)!;
  if (holder === null || typeof holder !== 'object') return undefined;
  return Object.is(member(holder, last), value) ? spellingOf(holder, last, value) : undefined;
}

/** `holder[step]`: an own member of an object for a name, an item of an array for an index; otherwise nothing. */
function member(holder: unknown, step: PathSegment): unknown {
  if (holder === null || typeof holder !== 'object') return undefined;
  if (typeof step === 'number') return Array.isArray(holder) ? holder[step] : undefined;
  if (Array.isArray(holder) || !Object.hasOwn(holder, step)) return undefined;
  return (holder as Record<string, unknown>)[step];
}

/**
 * Called when JSONata leaves a node (the evaluation's exit hook): an object
 * or array constructor whose members are plain paths to spelled numbers
 * passes the spellings on to the value it built.
 */
export function noteConstructed(expr: SyntaxNode, input: unknown, result: unknown): void {
  if (expr.type !== 'unary' || result === null || typeof result !== 'object' || Array.isArray(input)) return;
  if (expr.value === '{' && expr.lhs && !Array.isArray(result)) {
    for (const [name, item] of expr.lhs) {
      if (name.type === 'string' && typeof name.value === 'string') noteMember(result, name.value, item, input);
    }
  } else if (
    expr.value === '[' &&
    expr.expressions &&
    Array.isArray(result) &&
    result.length === expr.expressions.length
  ) {
    // Equal lengths: no item was a sequence that got flattened in, or nothing that got dropped, so indexes line up.
    expr.expressions.forEach((item, index) => noteMember(result, String(index), item, input));
  }
}

function noteMember(holder: object, key: string, node: SyntaxNode, input: unknown): void {
  const value = (holder as Record<string, unknown>)[key];
  if (typeof value !== 'number') return;
  const names = plainPathNames(node);
  const spelling = names && spellingAt(input, names, value);
  if (spelling !== undefined) rememberSpelling(holder, key, spelling);
}
