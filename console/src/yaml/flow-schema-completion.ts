// Completion in the YAML tab from the flow JSON Schema: the fields a mapping
// may have (with their descriptions), and the values an enum field takes. The
// cursor's place in the document is found by parsing the text with a marker
// at the cursor, which also works while a key is half typed.
import type { CompletionContext, CompletionResult, Completion } from '@codemirror/autocomplete';
import { isMap, isPair, isScalar, isSeq, parseDocument, visit, type Node, type Pair } from 'yaml';

type Schema = Record<string, unknown>;
const MARK = 'FLOWHOOKCURSOR';

export function schemaCompletion(root: Schema) {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/[A-Za-z0-9_]*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const text = context.state.doc.toString();
    const place = placeOf(`${text.slice(0, word.from)}${MARK}${text.slice(context.pos)}`);
    if (!place) return null;
    const schema = schemaAt(root, root, place.path);
    if (!schema) return null;
    const options = place.kind === 'key' ? keyOptions(root, schema) : valueOptions(root, schema);
    return options.length > 0 ? { from: word.from, options, validFor: /^[A-Za-z0-9_]*$/ } : null;
  };
}

interface Place {
  kind: 'key' | 'value';
  /** Field names, '[]' for a list's item. */
  path: string[];
}

/** Where the marker sits: a key of the mapping at `path`, or the value of the field at `path`. */
function placeOf(text: string): Place | undefined {
  const doc = parseDocument(text);
  let found: Place | undefined;
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (typeof node.value !== 'string' || !node.value.includes(MARK)) return undefined;
      const path = dataPath(ancestors);
      const parent = ancestors.at(-1);
      if (isPair(parent) && key === 'value') {
        const keyNode = parent.key as Node | null;
        const sameLine = keyNode?.range && node.range && !text.slice(keyNode.range[1], node.range[0]).includes('\n');
        // `key: val|` completes the value; a new line under `key:` starts the first key of its mapping.
        found = sameLine ? { kind: 'value', path } : { kind: 'key', path };
      } else if (isSeq(parent)) {
        found = { kind: 'key', path: [...path, '[]'] };
      } else {
        found = { kind: 'key', path: isPair(parent) ? path.slice(0, -1) : path };
      }
      return visit.BREAK;
    },
  });
  return found;
}

/** The field names and list items from the document down to a node, out of visit()'s ancestors. */
function dataPath(ancestors: readonly unknown[]): string[] {
  const path: string[] = [];
  ancestors.forEach((ancestor, index) => {
    if (isPair(ancestor))
      path.push(String(isScalar((ancestor as Pair).key) ? ((ancestor as Pair).key as { value: unknown }).value : ''));
    else if (isSeq(ancestor) && index < ancestors.length - 1) path.push('[]');
    else if (isMap(ancestor)) return;
  });
  return path;
}

function schemaAt(root: Schema, schema: Schema, path: string[]): Schema | undefined {
  let current: Schema | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    const parts = flatten(root, current);
    if (segment === '[]') current = parts.map((part) => part.items as Schema | undefined).find(Boolean);
    else
      current = parts
        .map((part) => (part.properties as Record<string, Schema> | undefined)?.[segment] ?? additional(part))
        .find(Boolean);
  }
  return current;
}

function additional(schema: Schema): Schema | undefined {
  return typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
}

/** A schema with its $ref followed and its allOf, anyOf and oneOf parts beside it. */
function flatten(root: Schema, schema: Schema, depth = 0): Schema[] {
  if (depth > 8) return [];
  const parts: Schema[] = [schema];
  if (typeof schema.$ref === 'string') {
    const target = resolve(root, schema.$ref);
    if (target) parts.push(...flatten(root, target, depth + 1));
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const part of (schema[key] as Schema[] | undefined) ?? []) parts.push(...flatten(root, part, depth + 1));
  }
  return parts;
}

function resolve(root: Schema, ref: string): Schema | undefined {
  if (ref === '#') return root;
  const name = ref.replace('#/definitions/', '');
  return (root.definitions as Record<string, Schema> | undefined)?.[name];
}

function keyOptions(root: Schema, schema: Schema): Completion[] {
  const options = new Map<string, Completion>();
  for (const part of flatten(root, schema)) {
    for (const [name, property] of Object.entries((part.properties as Record<string, Schema> | undefined) ?? {})) {
      if (!options.has(name))
        options.set(name, { label: name, type: 'property', detail: summary(root, property), apply: `${name}: ` });
    }
  }
  return [...options.values()];
}

function valueOptions(root: Schema, schema: Schema): Completion[] {
  const parts = flatten(root, schema);
  const options: Completion[] = [];
  for (const part of parts) {
    const descriptions = (part.enumDescriptions as string[] | undefined) ?? [];
    ((part.enum as unknown[] | undefined) ?? []).forEach((value, index) => {
      if (typeof value === 'string') options.push({ label: value, type: 'enum', detail: descriptions[index] });
    });
    if (part.type === 'boolean') options.push({ label: 'true', type: 'keyword' }, { label: 'false', type: 'keyword' });
  }
  return options;
}

/** The first sentence of a field's description, for the completion's detail. */
function summary(root: Schema, property: Schema): string | undefined {
  const description = flatten(root, property)
    .map((part) => part.description)
    .find((text) => typeof text === 'string') as string | undefined;
  return description?.split(/(?<=\.)\s+(?=[A-Z])/)[0];
}
