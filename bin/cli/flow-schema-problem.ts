// Finds *where* a flow document breaks the protobuf JSON mapping. protobuf-es
// says what is wrong ("key \"teleport\" is unknown") but not where; a flow file
// author needs the path (`steps[2].teleport`) and, from there, the line. This
// walks the document alongside the message descriptor and names the first
// problem; the decoding itself stays with `fromJson`.
import { fromJson, type DescEnum, type DescField, type DescMessage, type DescOneof } from '@bufbuild/protobuf';

export { formatPath, type PathSegment } from '../../flow/field-path.ts';
import type { PathSegment } from '../../flow/field-path.ts';

export interface SchemaProblem {
  path: PathSegment[];
  message: string;
  /** The key itself is the problem (unknown, or clashing in a oneof), not its value. */
  atKey?: boolean;
}

/**
 * A `secret` key in the trigger (or at the top): the one field a flow file
 * must never carry, so it gets its own explanation instead of "unknown field".
 */
export function findSecret(document: unknown): PathSegment[] | undefined {
  if (!isMapping(document)) return undefined;
  for (const key of Object.keys(document)) if (isSecretKey(key)) return [key];
  return 'trigger' in document ? findSecretBelow(document.trigger, ['trigger']) : undefined;
}

function findSecretBelow(value: unknown, path: PathSegment[]): PathSegment[] | undefined {
  const entries: [PathSegment, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : isMapping(value)
      ? Object.entries(value)
      : [];
  for (const [key, child] of entries) {
    if (typeof key === 'string' && isSecretKey(key)) return [...path, key];
    const found = findSecretBelow(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

const isSecretKey = (key: string) => /^secret(hash)?$/i.test(key);

export function findSchemaProblem(
  schema: DescMessage,
  value: unknown,
  path: PathSegment[] = [],
): SchemaProblem | undefined {
  if (!isMapping(value))
    return { path, message: `expected a mapping of ${schema.name} fields, got ${describe(value)}` };
  const setInOneof = new Map<DescOneof, string>();
  for (const [key, child] of Object.entries(value)) {
    const here = [...path, key];
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) return { path: here, message: unknownField(schema, key), atKey: true };
    // JSON null means "not set" in the protobuf mapping.
    if (child === null) continue;
    if (field.oneof) {
      const other = setInOneof.get(field.oneof);
      if (other !== undefined)
        return {
          path: here,
          message: `"${other}" and "${key}" cannot both be set: use one of ${field.oneof.fields.map((f) => f.jsonName).join(', ')}`,
          atKey: true,
        };
      setInOneof.set(field.oneof, key);
    }
    const problem = fieldProblem(schema, field, key, child, here);
    if (problem) return problem;
  }
  return undefined;
}

function fieldProblem(
  parent: DescMessage,
  field: DescField,
  key: string,
  value: unknown,
  path: PathSegment[],
): SchemaProblem | undefined {
  switch (field.fieldKind) {
    case 'message':
      return messageProblem(field.message, value, path);
    case 'enum':
      return enumProblem(field.enum, value, path);
    case 'list': {
      if (!Array.isArray(value)) return { path, message: `expected a list, got ${describe(value)}` };
      for (const [i, item] of value.entries()) {
        const problem =
          field.listKind === 'message'
            ? messageProblem(field.message, item, [...path, i])
            : field.listKind === 'enum'
              ? enumProblem(field.enum, item, [...path, i])
              : decodeProblem(parent, { [key]: [item] }, [...path, i]);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'map': {
      if (!isMapping(value)) return { path, message: `expected a mapping, got ${describe(value)}` };
      if (field.mapKind !== 'message') return decodeProblem(parent, { [key]: value }, path);
      for (const [name, item] of Object.entries(value)) {
        const problem = messageProblem(field.message, item, [...path, name]);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'scalar':
      return decodeProblem(parent, { [key]: value }, path);
  }
}

function messageProblem(schema: DescMessage, value: unknown, path: PathSegment[]): SchemaProblem | undefined {
  // Well-known types (Struct, Value, …) have their own JSON forms; fromJson judges them.
  if (!schema.typeName.startsWith('google.protobuf.')) return findSchemaProblem(schema, value, path);
  if (schema.typeName === 'google.protobuf.Struct' && !isMapping(value))
    return { path, message: `expected a mapping, got ${describe(value)}` };
  return decodeProblem(schema, value, path);
}

function enumProblem(schema: DescEnum, value: unknown, path: PathSegment[]): SchemaProblem | undefined {
  const known = schema.values.some((v) => v.name === value || v.number === value);
  if (known) return undefined;
  // The *_UNSPECIFIED value is the "not set" default, not something to write.
  const choices = schema.values.filter((v) => v.number !== 0).map((v) => v.name);
  return { path, message: `unknown value ${JSON.stringify(value)}; expected one of ${choices.join(', ')}` };
}

/** Lets protobuf-es judge a leaf, keeping only the part of its message after "from JSON:". */
function decodeProblem(schema: DescMessage, value: unknown, path: PathSegment[]): SchemaProblem | undefined {
  try {
    fromJson(schema, value as never);
    return undefined;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { path, message: text.replace(/^cannot decode .*? from JSON:?\s*/, '') || text };
  }
}

function unknownField(schema: DescMessage, key: string): string {
  const names = schema.fields.map((f) => f.jsonName);
  const near = names.find((name) => name.toLowerCase() === key.toLowerCase().replace(/[_-]/g, ''));
  const hint = near ? `did you mean "${near}"?` : `expected one of ${names.join(', ')}`;
  return `unknown field "${key}"; ${hint}`;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value === 'number' ? 'the number' : typeof value === 'boolean' ? 'the boolean' : `a ${typeof value}`} ${String(value)}`;
}
