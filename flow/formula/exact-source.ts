// What a value looked like in the text it was parsed from (the payload
// reaches the flow exactly as the caller sent it). Values stay
// plain JavaScript so formulas compute with them as before; the original
// spelling travels with them:
//  - an object or array parsed from the payload maps to its source slice;
//  - a number has no identity, so its spelling is kept on the object or array
//    holding it, under its key, and only when JavaScript would print the
//    number differently (12345678901234567890, 1.10, 1e3, -0).
// Writers (exact-json-writer.ts) consult these maps; anything not in them is
// written as computed.
//
// The annotations are non-enumerable symbol-keyed properties of the values
// themselves: Object.keys, for-in, JSON.stringify, Object.assign, spreads,
// structuredClone and Temporal's payload converter all skip them, so no copy
// made by JSONata or anyone else inherits a text it may no longer match; only
// carryExactness passes them on. (A WeakMap did the same five times slower on
// a 64 KiB payload, mostly in the garbage collector.) They are pure data, the
// same on every replay.

const SOURCE = Symbol('flowhook exact source');
const SPELLINGS = Symbol('flowhook exact spellings');

type Annotated = { [SOURCE]?: string; [SPELLINGS]?: Map<string, string> };

/** Records the exact text of a parsed object or array. */
export function rememberSource(node: object, text: string): void {
  Object.defineProperty(node, SOURCE, { value: text, configurable: true });
}

/** The exact text `node` was parsed from, if it was parsed from text and is handed on unchanged. */
export function sourceOf(node: object): string | undefined {
  return (node as Annotated)[SOURCE];
}

/** Whether JavaScript prints `value` as `text`, so no spelling needs keeping. */
export function printsAs(value: number, text: string): boolean {
  return String(value) === text;
}

/** Records how the number under `holder[key]` was spelled; a spelling JavaScript reproduces is not kept. */
export function rememberSpelling(holder: object, key: string | number, text: string): void {
  if (printsAs(Number(text), text)) return forgetSpelling(holder, key);
  spellingsOf(holder).set(String(key), text);
}

function spellingsOf(holder: object): Map<string, string> {
  let spelled = (holder as Annotated)[SPELLINGS];
  if (!spelled) Object.defineProperty(holder, SPELLINGS, { value: (spelled = new Map()), configurable: true });
  return spelled;
}

/** Drops a spelling that no longer applies: a repeated key (`{"a": 1.10, "a": 1.1}`) replaces the earlier number. */
export function forgetSpelling(holder: object, key: string | number): void {
  (holder as Annotated)[SPELLINGS]?.delete(String(key));
}

/**
 * The original spelling of `value`, read from `holder[key]`, or undefined.
 * The spelling counts only while it still denotes `value`: a number computed
 * with (or replaced) is written as computed. A number too large for a double
 * (`1e400`) reads as Infinity, which a plain JSON copy holds as null: null
 * with such a spelling is that number, copied.
 */
export function spellingOf(holder: object, key: string | number, value: number | null): string | undefined {
  const text = (holder as Annotated)[SPELLINGS]?.get(String(key));
  if (text === undefined) return undefined;
  const denoted = Number(text);
  return Object.is(denoted, value) || (value === null && !Number.isFinite(denoted)) ? text : undefined;
}

/** Gives a structurally equal copy the annotations of its original (json-value.ts copies every formula result). */
export function carryExactness(from: object, to: object): void {
  const text = sourceOf(from);
  if (text !== undefined) rememberSource(to, text);
  const spelled = (from as Annotated)[SPELLINGS];
  if (spelled) Object.defineProperty(to, SPELLINGS, { value: new Map(spelled), configurable: true });
}
