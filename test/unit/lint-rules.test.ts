// The lint holds the arrows of the house (eslint.config.js): each arrow is shown refusing a probe
// that crosses it, and allowing its neighbour that does not, so a weakened or mistyped rule fails
// here. The probes are linted in memory at a path inside the folder they stand for; their imports
// name real files, since the import rule judges where an import resolves to. Boundary probes lint
// without type information (a TypeScript program of the whole project would cost ~15 s); the
// promise probe gets a program of its own.
import test from 'ava';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { workflowBundle } from '../../workflows/workflow-bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const untyped = new ESLint({
  cwd: ROOT,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
  },
});

/** `rule: message` of every problem ESLint reports for `code` as the file at `path`. */
async function problems(path: string, code: string, eslint = untyped): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

const importOf = (specifier: string) => `import * as probe from '${specifier}';\nexport { probe };\n`;
const NODE_BUILTIN = /^no-restricted-imports: .*Temporal's sandbox: no Node built-ins/;
const ZONE = (arrow: string) => new RegExp(`^import-x/no-restricted-paths: .*${arrow}`);

/** Asserts that importing `specifier` from `path` is refused with a problem matching `expected`, and nothing else. */
async function refused(t: import('ava').ExecutionContext, path: string, specifier: string, expected: RegExp) {
  const found = await problems(path, importOf(specifier));
  t.is(found.length, 1, `${path} → ${specifier}: ${found.join('; ')}`);
  t.regex(found[0] ?? '', expected, `${path} → ${specifier}`);
}

async function allowed(t: import('ava').ExecutionContext, path: string, specifier: string) {
  t.deepEqual(await problems(path, importOf(specifier)), [], `${path} → ${specifier}`);
}

test('workflow code imports no Node built-in; the Node side of workflows/ may', async (t) => {
  for (const specifier of ['node:fs', 'fs', 'node:crypto', 'timers/promises']) {
    await refused(t, 'workflows/interpreter/lint-probe.ts', specifier, NODE_BUILTIN);
    await refused(t, 'flow/lint-probe.ts', specifier, NODE_BUILTIN);
  }
  await refused(t, 'common/own-member.ts', 'node:util', NODE_BUILTIN);
  for (const path of [
    'workflows/activities/lint-probe.ts',
    'workflows/outbound/lint-probe.ts',
    'workflows/codec/lint-probe.ts',
    'workflows/worker.ts',
    'common/temporal/temporal-tls.ts',
    'common/pem-files.ts',
  ]) {
    await allowed(t, path, 'node:fs');
  }
});

test('workflows/ imports nothing from engine/, facade/ or bin/', async (t) => {
  const arrow = 'workflows/ imports proto/gen, common/ and flow/ only';
  await refused(t, 'workflows/steps/lint-probe.ts', '../../engine/errors.ts', ZONE(arrow));
  await refused(t, 'workflows/activities/lint-probe.ts', '../../facade/app.ts', ZONE(arrow));
  await refused(t, 'workflows/steps/lint-probe.ts', '../../bin/data-dir.ts', ZONE('nothing imports bin/'));
  await allowed(t, 'workflows/steps/lint-probe.ts', '../../common/duration.ts');
  await allowed(t, 'workflows/steps/lint-probe.ts', '../../proto/gen/flowhook/flow/v1/flow_pb.js');
});

test('facade/ imports nothing from engine/ or workflows/ (not even flow/)', async (t) => {
  const arrow = 'facade/ imports proto/gen and common/ only';
  await refused(t, 'facade/lint-probe.ts', '../engine/errors.ts', ZONE(arrow));
  await refused(t, 'facade/lint-probe.ts', '../flow/index.ts', ZONE(arrow));
  await refused(t, 'facade/oauth/lint-probe.ts', '../../workflows/codec/payload-codec.ts', ZONE(arrow));
  await allowed(t, 'facade/lint-probe.ts', '../common/name-limits.ts');
  await allowed(t, 'facade/lint-probe.ts', '../proto/gen/flowhook/engine/v1/webhook_service_pb.js');
});

test('engine/ imports from workflows/ only the codec (the model is flow/), and nothing from facade/', async (t) => {
  await refused(
    t,
    'engine/domain/webhook/lint-probe.ts',
    '../../../workflows/interpreter/run-steps.ts',
    ZONE('engine/ imports from workflows/ only codec/'),
  );
  await refused(
    t,
    'engine/lint-probe.ts',
    '../workflows/activities/index.ts',
    ZONE('engine/ imports from workflows/ only codec/'),
  );
  await refused(
    t,
    'engine/lint-probe.ts',
    '../facade/app.ts',
    ZONE('engine/ imports proto/gen, common/, flow/ and the payload codec only'),
  );
  await allowed(t, 'engine/domain/webhook/lint-probe.ts', '../../../flow/index.ts');
  await allowed(t, 'engine/lint-probe.ts', '../flow/flow-messages.ts');
  await allowed(t, 'engine/lint-probe.ts', '../workflows/codec/payload-codec.ts');
});

test('flow/ is a leaf: it imports no other folder of the product but common/', async (t) => {
  const arrow = 'flow/ is the flow model, a leaf';
  await refused(t, 'flow/lint-probe.ts', '../workflows/activities/index.ts', ZONE(arrow));
  await refused(t, 'flow/formula/lint-probe.ts', '../../engine/errors.ts', ZONE(arrow));
  await allowed(t, 'flow/lint-probe.ts', '../common/duration.ts');
  await allowed(t, 'workflows/interpreter/lint-probe.ts', '../../flow/index.ts');
});

test("the engine's layers: edges → domain → infrastructure, and nothing imports upward", async (t) => {
  const domain = 'engine/domain/ never imports an edge';
  await refused(t, 'engine/domain/flows/lint-probe.ts', '../../edges/rpc/error-interceptor.ts', ZONE(domain));
  await refused(t, 'engine/domain/executions/lint-probe.ts', '../../edges/services/execution-service.ts', ZONE(domain));
  await refused(t, 'engine/domain/flows/lint-probe.ts', '../../main.ts', ZONE(domain));
  await refused(
    t,
    'engine/infrastructure/storage/lint-probe.ts',
    '../../domain/companies/companies.ts',
    ZONE('engine/infrastructure/ imports nothing of the domain'),
  );
  await refused(
    t,
    'engine/infrastructure/temporal/lint-probe.ts',
    '../../edges/rpc/engine-tls.ts',
    ZONE('engine/infrastructure/ imports nothing of the domain'),
  );
  await refused(
    t,
    'engine/edges/services/lint-probe.ts',
    '../../server.ts',
    ZONE('engine/edges/ are wired by main.ts'),
  );
  await refused(
    t,
    'engine/errors.ts',
    './infrastructure/cache/snapshot-cache.ts',
    ZONE("the engine's errors and logger are below every layer"),
  );
  await allowed(t, 'engine/edges/services/lint-probe.ts', '../../domain/flows/flows.ts');
  await allowed(t, 'engine/domain/flows/lint-probe.ts', '../../infrastructure/storage/entities.ts');
  await allowed(t, 'engine/domain/flows/lint-probe.ts', '../../errors.ts');
});

test('a planted import cycle is refused', async (t) => {
  // flow/formula/index.ts imports resolve.ts; a resolve.ts that imported the index back would close a cycle.
  const found = await problems(
    'flow/formula/resolve.ts',
    "import { resolveText } from './index.ts';\nexport const probe = resolveText;\n",
  );
  t.true(
    found.some((problem) => problem.startsWith('import-x/no-cycle: Dependency cycle')),
    found.join('; '),
  );
  await allowed(t, 'flow/formula/lint-probe.ts', './index.ts');
});

test('nothing imports bin/ (tests may: they start its launchers)', async (t) => {
  for (const path of [
    'common/lint-probe.ts',
    'engine/lint-probe.ts',
    'facade/lint-probe.ts',
    'workflows/lint-probe.ts',
  ]) {
    await refused(t, path, '../bin/data-dir.ts', ZONE('nothing imports bin/'));
  }
  await allowed(t, 'bin/cli/lint-probe.ts', '../data-dir.ts');
  await allowed(t, 'test/unit/lint-probe.ts', '../../bin/data-dir.ts');
});

test('common/ and console/ import no other folder of the product', async (t) => {
  await refused(
    t,
    'common/lint-probe.ts',
    '../flow/index.ts',
    ZONE('common/ is what facade, engine and workers share'),
  );
  await refused(
    t,
    'common/configuration/lint-probe.ts',
    '../../engine/errors.ts',
    ZONE('common/ is what facade, engine and workers share'),
  );
  await refused(t, 'console/src/lint-probe.ts', '../../common/duration.ts', ZONE('console/ imports proto/gen only'));
  await refused(t, 'console/src/lint-probe.ts', '../../flow/index.ts', ZONE('console/ imports proto/gen only'));
  await allowed(t, 'console/src/lint-probe.ts', '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js');
});

test('process.env is read only by the files the configuration scan lists', async (t) => {
  const reads = 'export const value = process.env.FLOWHOOK_PROBE;\n';
  for (const path of [
    'engine/lint-probe.ts',
    'facade/oauth/lint-probe.ts',
    'workflows/activities/lint-probe.ts',
    'common/lint-probe.ts',
    'bin/cli/lint-probe.ts',
  ]) {
    const found = await problems(path, reads);
    t.is(found.length, 1, path);
    t.regex(found[0] ?? '', /^no-restricted-properties: 'process\.env' .*configuration table/, path);
  }
  t.regex(
    (await problems('engine/lint-probe.ts', 'const { env } = process;\nexport { env };\n'))[0] ?? '',
    /^no-restricted-properties/,
  );
  for (const path of ['engine/config.ts', 'bin/embedded/child-environment.ts', 'test/unit/lint-probe.ts'])
    t.deepEqual(await problems(path, reads), [], path);
});

test('a promise is awaited, returned, handled or marked with void', async (t) => {
  const path = `${ROOT}engine/lint-probe.ts`;
  const code = [
    'async function work(): Promise<number> { return 1; }',
    'export async function caller(list: number[]) {',
    '  work();', // floating
    '  list.forEach(async () => { await work(); });', // a promise where nothing awaits it
    '  void work();',
    '  return work();',
    '}',
    '',
  ].join('\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2024,
    lib: ['lib.es2024.d.ts'],
    strict: true,
    noEmit: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, ...rest) =>
    name === path ? ts.createSourceFile(name, code, ts.ScriptTarget.ES2024, true) : readSource(name, ...rest);
  const program = ts.createProgram({ rootNames: [path], options, host });
  const typed = new ESLint({
    cwd: ROOT,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
  });
  const [result] = await typed.lintText(code, { filePath: path });
  t.deepEqual(
    result!.messages.map((message) => `${message.line} ${message.ruleId}`),
    ['3 @typescript-eslint/no-floating-promises', '4 @typescript-eslint/no-misused-promises'],
  );
});

test("every module of the worker's workflow bundle is linted as workflow code", async (t) => {
  const { code } = await workflowBundle();
  const modules = [
    ...new Set([...code.matchAll(/"\.\/((?:workflows|common|flow)\/[^"]+\.ts)"/g)].map((match) => match[1]!)),
  ].sort();
  t.true(
    modules.includes('workflows/flow-workflow.ts') && modules.includes('flow/payload-converter.ts'),
    'the bundle names its modules',
  );
  const outside: string[] = [];
  for (const path of modules) {
    if (!(await problems(path, importOf('node:fs'))).some((problem) => NODE_BUILTIN.test(problem))) outside.push(path);
  }
  t.deepEqual(outside, [], 'add these to SANDBOX in eslint.config.js');
});
