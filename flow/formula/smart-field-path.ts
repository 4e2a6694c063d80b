// SmartFields: `{{Trigger.Payload.order.id}}`, `{{Steps.call.items[0].sku}}`.
// A path is identifiers joined by dots, each optionally followed by `[n]`
// indexes. It is looked up by hand instead of through JSONata: a field is a
// plain member access and must stay cheap, and JSONata's sequence semantics
// (mapping over arrays, flattening) would surprise here.

import type { PathSegment } from '../field-path.ts';
import type { FormulaContext } from './formula-context.ts';
import { toJsonText } from './json-value.ts';
import { spellingOf } from './exact-source.ts';

// Hyphens are allowed inside names because webhook payloads often use them
// (`{{Trigger.Payload.order-id}}`); a path has no operators to confuse them with.
const NAME = /^[\p{L}_$][\p{L}\p{N}_$-]*/u;
const INDEX = /^\[(\d+)\]/;

/** The steps of a SmartField path, or undefined when it is not a valid path. */
export function parseFieldPath(path: string): PathSegment[] | undefined {
  const steps: PathSegment[] = [];
  let rest = path;
  while (true) {
    const name = NAME.exec(rest);
    if (!name) return undefined;
    steps.push(name[0]);
    rest = rest.slice(name[0].length);
    for (let index = INDEX.exec(rest); index; index = INDEX.exec(rest)) {
      steps.push(Number(index[1]));
      rest = rest.slice(index[0].length);
    }
    if (rest === '') return steps;
    if (!rest.startsWith('.')) return undefined;
    rest = rest.slice(1);
  }
}

/** The text a SmartField inserts; missing members become the empty string. */
export function fieldText(steps: readonly PathSegment[], ctx: FormulaContext): string {
  // The whole payload is inserted as received: re-serialising would change
  // number formatting, key order or spacing that a receiver may depend on.
  if (steps.length === 2 && steps[0] === 'Trigger' && steps[1] === 'Payload') return ctx.Trigger.PayloadJson;
  const holder = lookup(steps.slice(0, -1), ctx);
  const value = lookup(steps.slice(-1), holder);
  // A payload number keeps the caller's spelling (12345678901234567890, 1.10), see exact-source.ts.
  const spelling =
    typeof value === 'number' && holder !== null && typeof holder === 'object'
      ? spellingOf(holder, steps.at(-1)!, value)
      : undefined;
  return spelling ?? toJsonText(value);
}

function lookup(steps: readonly PathSegment[], root: unknown): unknown {
  let value = root;
  for (const step of steps) {
    if (value === null || typeof value !== 'object') return undefined;
    if (typeof step === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[step];
    } else {
      // Own properties only, so `{{Variables.constructor}}` cannot reach prototypes.
      if (Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
      value = (value as Record<string, unknown>)[step];
    }
  }
  return value;
}
