// Turning formula results into what the rest of the flow can carry. Values
// leave the workflow as JSON (Temporal payloads, HTTP bodies), and JSONata
// results may be "sequences" (arrays with extra flags) or functions, or share
// objects with the context; a plain deep copy avoids all three surprises.
// A copy keeps its original's exact source text (exact-source.ts), so a
// payload value handed on unchanged is still written as it was sent.

import { carryExactness, sourceOf } from './exact-source.ts';
import { writeExactJson } from './exact-json-writer.ts';
import { setOwnMember } from '../../common/own-member.ts';

/**
 * A plain JSON copy of a value, with JSON.stringify's rules: functions and
 * undefined disappear from objects and become null in arrays and at the top.
 */
export function toPlainJson(value: unknown): unknown {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = value.map(toPlainJson);
    carryExactness(value, items);
    return items;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return toPlainJson((value as { toJSON(): unknown }).toJSON());
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    setOwnMember(copy, key, toPlainJson(item));
  }
  carryExactness(value, copy);
  return copy;
}

/** How a value reads inside text: strings as is, nothing as '', structures as JSON. */
export function toJsonText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'function' || typeof value === 'symbol') return '';
  // A payload value handed on unchanged is its own text: no copy needed.
  return sourceOf(value) ?? writeExactJson(toPlainJson(value));
}
