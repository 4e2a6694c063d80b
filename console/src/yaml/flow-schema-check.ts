// The flow JSON Schema (flow.schema.json, generated from the Flow message by
// `flowhook flow schema`) checked against the YAML tab's text while someone
// types: each problem at the deepest field it is about. A validator that
// compiles no code (the console's Content-Security-Policy allows no eval).
import { Validator } from '@cfworker/json-schema';
import flowSchema from '../../../flow.schema.json';
import type { PathSegment } from './flow-yaml.ts';

export const FLOW_SCHEMA = flowSchema as unknown as Record<string, unknown>;

const validator = new Validator(FLOW_SCHEMA as never, '7', false);
/** Keywords that only report that something below them failed: the failure itself is reported too. */
const WRAPPERS = new Set([
  'allOf',
  'anyOf',
  '$ref',
  'properties',
  'items',
  'additionalItems',
  'patternProperties',
  'dependencies',
  'if',
  'then',
  'else',
  'not',
]);

export interface SchemaProblem {
  path: PathSegment[];
  message: string;
}

export function schemaProblems(data: unknown): SchemaProblem[] {
  const result = validator.validate(data);
  if (result.valid) return [];
  const byPath = new Map<string, SchemaProblem>();
  for (const error of result.errors) {
    if (WRAPPERS.has(error.keyword)) continue;
    const path = pointerPath(error.instanceLocation, data);
    const key = path.join('/');
    // The first (outermost) reason per field is the one worth reading.
    if (!byPath.has(key)) byPath.set(key, { path, message: readable(error.keyword, error.error) });
  }
  return [...byPath.values()];
}

/** `#/steps/0/respond` → ['steps', 0, 'respond'] (a number where the data has a list). */
function pointerPath(pointer: string, data: unknown): PathSegment[] {
  const parts = pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  const path: PathSegment[] = [];
  let current = data;
  for (const part of parts) {
    const segment = Array.isArray(current) ? Number(part) : part;
    path.push(segment);
    current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[part] : undefined;
  }
  return path;
}

function readable(keyword: string, error: string): string {
  if (keyword === 'additionalProperties')
    return error.replace(/^Property "(.*)" does not match additional properties schema\.?$/, 'unknown field "$1"');
  if (keyword === 'oneOf')
    return 'needs exactly one of its kinds (for a step: respond, sleep, waitUntil, set, if, httpRequest, log, fail, record or waitForCallback)';
  return error;
}
