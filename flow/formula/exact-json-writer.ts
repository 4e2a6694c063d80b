// JSON text for a plain JSON value (json-value.ts toPlainJson), writing what
// was handed on unchanged from a parsed payload as it was sent: an object or
// array with a source slice is copied as that text, a number with a kept
// spelling keeps it (exact-source.ts). Everything else is written exactly as
// JSON.stringify writes it, so a value with no annotations (every value of an
// execution started before exact payloads, see trigger-outputs.ts) gives the
// same text as before.

import { sourceOf, spellingOf } from './exact-source.ts';

/** JSON text of a plain JSON value (objects, arrays, strings, finite numbers, booleans, null). */
export function writeExactJson(value: unknown): string {
  return write(value, undefined, '');
}

function write(value: unknown, holder: object | undefined, key: string): string {
  if (typeof value === 'number' || value === null)
    return (holder && spellingOf(holder, key, value)) ?? JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const source = sourceOf(value);
  if (source !== undefined) return source;
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + (write(value[i], value, String(i)) ?? 'null');
    return text + ']';
  }
  let text = '{';
  let first = true;
  for (const [name, item] of Object.entries(value)) {
    const itemText = write(item, value, name);
    // JSON.stringify leaves out members it cannot write (undefined, functions).
    if (itemText === undefined) continue;
    text += (first ? '' : ',') + JSON.stringify(name) + ':' + itemText;
    first = false;
  }
  return text + '}';
}
