// Writes the chart's values reference from the comments of deploy/helm/flowhook/values.yaml, so neither can
// drift from the chart: the tables of README.md (between its GENERATED markers) and values.schema.json, which
// helm checks every install, upgrade, lint and template against (a misspelt key or a wrong type is refused).
// In values.yaml:
//   ## Title            starts a section (one table each);
//   # -- text           documents the key below it (further `#` lines continue the text); `# -- (int) text`
//                       names the type where the default (null, empty) does not show it.
// A documented map whose keys are not documented themselves is one row and a free-form object; every other
// key must be documented (an undocumented one fails the run), and maps of documented keys take no others.
//
//   node deploy/helm/tooling/values-reference.ts          rewrite README.md's tables and values.schema.json
//   node deploy/helm/tooling/values-reference.ts --check  exit 1 when either is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { isMap, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';

const CHART = new URL('../flowhook/', import.meta.url);
const README = new URL('README.md', CHART);
const SCHEMA = new URL('values.schema.json', CHART);
const BEGIN =
  '<!-- BEGIN GENERATED: values (node deploy/helm/tooling/values-reference.ts writes this part; do not edit) -->';
const END = '<!-- END GENERATED: values -->';

interface Row {
  key: string;
  type: string;
  default: unknown;
  description: string;
}
interface Section {
  title: string;
  rows: Row[];
}
type Schema = Record<string, unknown>;

const sections: Section[] = [{ title: 'Values', rows: [] }];
const undocumented: string[] = [];
const document = parseDocument(readFileSync(new URL('values.yaml', CHART), 'utf8'));
if (document.errors.length > 0) throw new Error(`values.yaml: ${document.errors[0]!.message}`);
const root = walk(document.contents as YAMLMap, '', document.commentBefore ?? '');
// What an umbrella chart passes down to every subchart.
(root.properties as Record<string, Schema>).global = {
  type: 'object',
  description: 'Values an umbrella chart shares with its subcharts.',
};
const schema = { $schema: 'http://json-schema.org/draft-07/schema#', title: 'flowhook chart values', ...root };
if (undocumented.length > 0) {
  console.error(
    `values-reference: undocumented keys in values.yaml (add a "# --" comment): ${undocumented.join(', ')}`,
  );
  process.exit(1);
}

const readme = readFileSync(README, 'utf8');
const start = readme.indexOf(BEGIN);
const stop = readme.indexOf(END);
if (start < 0 || stop < start) throw new Error(`${README.pathname} has no ${BEGIN} … ${END} part`);
const tables = [BEGIN, ...sections.filter((section) => section.rows.length > 0).flatMap(table), '', END].join('\n');
const outputs: [URL, string][] = [
  [README, readme.slice(0, start) + tables + readme.slice(stop + END.length)],
  // Written as the repository's Prettier would write it (`npm run format:check` covers JSON).
  [
    SCHEMA,
    await format(JSON.stringify(schema), {
      ...(await resolveConfig(fileURLToPath(SCHEMA))),
      filepath: fileURLToPath(SCHEMA),
    }),
  ],
];
const check = process.argv.includes('--check');
for (const [file, text] of outputs) {
  const name = file.pathname.split('/').slice(-2).join('/');
  const current = (() => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  })();
  if (current === text) continue;
  if (check) {
    console.error(`values-reference: ${name} is stale: run node deploy/helm/tooling/values-reference.ts`);
    process.exitCode = 1;
  } else {
    writeFileSync(file, text);
    console.log(`values-reference: ${name} written`);
  }
}
if (check && process.exitCode !== 1)
  console.log('values-reference: README.md and values.schema.json match values.yaml');

/** The schema of `map`, with a table row for each documented key. `inherited`: the comment yaml attaches to a map rather than to its first key. */
function walk(map: YAMLMap, prefix: string, inherited: string): Schema {
  const properties: Record<string, Schema> = {};
  map.items.forEach((item, index) => {
    const pair = item as Pair;
    const name = String((pair.key as { value: unknown }).value);
    const key = `${prefix}${name}`;
    const { section, description, type } = readComment(commentOf(pair, index, inherited));
    if (section !== undefined) sections.push({ title: section, rows: [] });
    const value = pair.value;
    const childComment = isMap(value) ? (value.commentBefore ?? '') : '';
    if (isMap(value) && (description === undefined || hasDocumentedKeys(value, childComment))) {
      if (description !== undefined)
        undocumented.push(`${key} (documented, but so are its keys: document the keys only)`);
      properties[name] = walk(value, `${key}.`, childComment);
      return;
    }
    if (description === undefined) {
      undocumented.push(key);
      return;
    }
    const plain =
      value === null || value === undefined
        ? null
        : isScalar(value)
          ? value.value
          : (value as { toJSON(): unknown }).toJSON();
    const shownType = type ?? typeOf(plain);
    sections.at(-1)!.rows.push({ key, type: shownType, default: plain, description });
    properties[name] = { ...schemaOf(shownType, type !== undefined), description };
  });
  return { type: 'object', additionalProperties: false, properties };
}

/** `annotated`: the type comes from a `(type)` note, on a default (null, "") that means "flowhook's own". */
function schemaOf(type: string, annotated: boolean): Schema {
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'int':
      return annotated ? { type: ['integer', 'string', 'null'], pattern: '^[0-9]*$' } : { type: 'integer' };
    case 'list':
      return { type: 'array' };
    case 'object':
      return { type: 'object' };
    default:
      return {};
  }
}

function hasDocumentedKeys(map: YAMLMap, inherited: string): boolean {
  return map.items.some(
    (item, index) => readComment(commentOf(item as Pair, index, inherited)).description !== undefined,
  );
}

function commentOf(pair: Pair, index: number, inherited: string): string {
  return (pair.key as { commentBefore?: string } | null)?.commentBefore ?? (index === 0 ? inherited : '');
}

/** The section title (a `## Title` line) and the `# --` description in a comment yaml collected. */
function readComment(comment: string): { section?: string; description?: string; type?: string } {
  const lines = comment.split('\n');
  const section = lines
    .findLast((line) => line.startsWith('# '))
    ?.slice(2)
    .trim();
  const start = lines.findLastIndex((line) => line.trimStart().startsWith('-- '));
  if (start < 0) return { section };
  const text = [
    lines[start]!.trimStart().slice(3),
    ...lines.slice(start + 1).filter((line) => line.trim() !== '' && !line.startsWith('#')),
  ]
    .map((line) => line.trim())
    .join(' ')
    .trim();
  const typed = /^\(([^)]+)\)\s*(.*)$/.exec(text);
  return typed ? { section, type: typed[1], description: typed[2] } : { section, description: text };
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function table(section: Section): string[] {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const shown = (value: unknown) => {
    const json = JSON.stringify(value);
    return json === '""' ? '`""`' : `\`${cell(json)}\``;
  };
  return [
    '',
    `### ${section.title}`,
    '',
    '| Key | Type | Default | Description |',
    '|---|---|---|---|',
    ...section.rows.map((row) => `| \`${row.key}\` | ${row.type} | ${shown(row.default)} | ${cell(row.description)} |`),
  ];
}
