// Turns one audited call's request (as proto3 JSON) into what the audit log
// stores: only the allowlisted fields of audited-methods.ts, and of those only
// plain values, each bounded in length — a request is up to the engine's
// message limit, a row should stay small. A path that names a forbidden word
// is skipped even if someone listed it.
import { isForbiddenField, type AuditedMethod } from './audited-methods.ts';

/** Longest text kept from one field; longer texts end in `…`. */
export const MAX_FIELD_CHARS = 200;
/** Most items kept from a list field (e.g. egress hosts). */
export const MAX_LIST_ITEMS = 50;

export interface AuditEntry {
  action: string;
  company?: string;
  target?: string;
  details: Record<string, unknown>;
}

type Scalar = string | number | boolean;

export function auditEntryOf(method: AuditedMethod, requestJson: unknown): AuditEntry {
  const details: Record<string, unknown> = {};
  for (const path of method.details ?? []) {
    const value =
      plainValue(pick(requestJson, path)) ??
      (method.implicit && Object.hasOwn(method.implicit, path) ? method.implicit[path] : undefined);
    if (value !== undefined) details[path] = value;
  }
  return {
    action: method.action,
    company: textAt(requestJson, method.company),
    target: textAt(requestJson, method.target),
    details,
  };
}

function textAt(json: unknown, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const value = pick(json, path);
  return typeof value === 'string' && value !== '' ? bounded(value) : undefined;
}

function pick(json: unknown, path: string): unknown {
  if (isForbiddenField(path)) return undefined;
  let current = json;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part))
      return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Scalars and lists of scalars; an object (a nested message) is never copied whole. */
function plainValue(value: unknown): Scalar | Scalar[] | undefined {
  if (isScalar(value)) return typeof value === 'string' ? bounded(value) : value;
  if (Array.isArray(value)) {
    const items = value.filter(isScalar).slice(0, MAX_LIST_ITEMS);
    return items.map((item) => (typeof item === 'string' ? bounded(item) : item));
  }
  return undefined;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function bounded(text: string): string {
  return text.length <= MAX_FIELD_CHARS ? text : `${text.slice(0, MAX_FIELD_CHARS - 1)}…`;
}
