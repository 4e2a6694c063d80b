// The handbook (README.md and docs/) cannot drift from the code: every generated part — the
// references rendered from the code, the examples copied from examples/ — is what `npm run docs`
// writes today; every relative link and anchor leads somewhere; every repository path it names
// in a code span exists; and every flow it shows is an example file, which example-flows.test.ts
// validates.
import test from 'ava';
import { parse } from 'yaml';
import { StepSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { brokenLinks } from '../../docs/tooling/link-check.ts';
import { handbookPaths, readPage } from '../../docs/tooling/handbook-pages.ts';
import { handWritten, sectionsOf } from '../../docs/tooling/generated-sections.ts';
import { REFERENCES } from '../../docs/tooling/references.ts';
import { handbookState } from '../../docs/tooling/write-references.ts';

const pages = handbookPaths().map(readPage);

test('every generated part of the handbook is current (npm run docs)', async (t) => {
  const stale = (await handbookState()).filter((page) => page.written !== page.expected).map((page) => page.path);
  t.deepEqual(stale, [], 'stale: run "npm run docs"');
});

test('every reference is on a page of the handbook', (t) => {
  const placed = new Set(
    pages
      .flatMap((page) => sectionsOf(page.text))
      .filter((section) => section.kind === 'GENERATED')
      .map((section) => section.id),
  );
  t.deepEqual(
    Object.keys(REFERENCES).filter((id) => !placed.has(id)),
    [],
  );
});

test('every relative link and anchor of the handbook resolves, and every file it names exists', (t) => {
  t.deepEqual(brokenLinks(pages), []);
});

test('README.md is a front page: at most 200 lines', (t) => {
  const readme = pages.find((page) => page.path === 'README.md')!;
  t.true(readme.text.split('\n').length <= 200, `README.md has ${readme.text.split('\n').length} lines`);
});

/** A YAML block whose content is (part of) a flow file: a flow, a trigger, or steps. */
function isFlowYaml(text: string): boolean {
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return false;
  }
  const flowKeys = ['company', 'trigger', 'steps', 'webhook', 'direct', 'verify'];
  const stepKeys = StepSchema.oneofs[0]!.fields.map((field) => field.jsonName);
  const hasKey = (item: unknown, keys: readonly string[]) =>
    typeof item === 'object' && item !== null && keys.some((key) => key in item);
  if (Array.isArray(value)) return value.some((item) => hasKey(item, stepKeys));
  return hasKey(value, [...flowKeys, ...stepKeys]);
}

test('every flow the handbook shows is included from examples/ (where it is validated)', (t) => {
  const inline = pages.flatMap((page) =>
    [...handWritten(page.text).matchAll(/```ya?ml\n([\s\S]*?)```/g)]
      .filter(([, text]) => isFlowYaml(text!))
      .map(([, text]) => `${page.path}: ${text!.split('\n')[0]}`),
  );
  t.deepEqual(
    inline,
    [],
    'put the flow in examples/ and include it with <!-- BEGIN EXAMPLE: examples/… --><!-- END EXAMPLE: examples/… -->',
  );
});
