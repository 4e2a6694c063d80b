// The step registries: the model registry (flow/steps/) and the runner
// registry (workflows/steps/) each list every kind of the proto Step oneof.
// The model half loads outside the workflow sandbox — the engine validates
// flows in plain Node through flow/index.ts, which loads no file of
// workflows/, and so not '@temporalio/workflow' either.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { StepSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { connectionsUsedBy, STEP_KINDS, validateFlow } from '../../flow/index.ts';
import { STEP_MODELS, walkSteps } from '../../flow/steps/step-registry.ts';
import { STEP_RUNNERS } from '../../workflows/steps/runner-registry.ts';

const run = promisify(execFile);

/** Every module URL loading `entry` resolves, seen by a resolve hook in a fresh Node process. */
async function loadedModules(entry: string): Promise<string[]> {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); seen.push(resolved.url); return resolved; } });
    await import(process.argv[1]);
    process.stdout.write(JSON.stringify(seen));`;
  const { stdout } = await run(process.execPath, [
    '--input-type=module',
    '-e',
    script,
    new URL(entry, import.meta.url).href,
  ]);
  return JSON.parse(stdout) as string[];
}

const isWorkflowSdk = (url: string) => url.includes('/@temporalio/workflow/');
const WORKFLOWS = new URL('../../workflows/', import.meta.url).href;

test('the flow model the engine imports loads no file of workflows/, nor the workflow SDK', async (t) => {
  const modules = await loadedModules('../../flow/index.ts');
  // The graph really went through the step models: the checks below are about them too.
  t.true(modules.some((url) => url.endsWith('/flow/steps/http-request-step.ts')));
  t.deepEqual(
    modules.filter((url) => url.startsWith(WORKFLOWS)),
    [],
  );
  t.deepEqual(modules.filter(isWorkflowSdk), []);
});

test('the interpreter does load the workflow SDK, so the check above can see it', async (t) => {
  const modules = await loadedModules('../../workflows/interpreter/run-steps.ts');
  t.true(modules.some(isWorkflowSdk));
});

test('the registries have one model and one runner per case of the proto Step oneof, named as the oneof names it', (t) => {
  const oneof = StepSchema.oneofs.find((candidate) => candidate.name === 'kind')!;
  t.deepEqual([...STEP_KINDS].sort(), oneof.fields.map((field) => field.jsonName).sort());
  t.deepEqual(Object.keys(STEP_RUNNERS), [...STEP_KINDS]);
  for (const kind of STEP_KINDS) {
    t.is(STEP_MODELS[kind].kind, kind);
    t.is(STEP_RUNNERS[kind].kind, kind);
  }
});

test('walks reach nested steps by the branches their kind declares, with paths in the file spelling', (t) => {
  const steps = [
    {
      if: {
        condition: '${true}',
        then: [{ name: 'a', log: { message: 'x' } }],
        else: [
          { if: { condition: '${false}', then: [{ httpRequest: { url: 'https://e.example', connection: 'erp' } }] } },
        ],
      },
    },
    { httpRequest: { url: 'https://e.example', connection: 'erp' } },
  ];
  const visited: string[] = [];
  walkSteps(steps, 'steps', (_step, at, kind) => visited.push(`${at}:${kind}`));
  t.deepEqual(visited, [
    'steps[0]:if',
    'steps[0].if.then[0]:log',
    'steps[0].if.else[0]:if',
    'steps[0].if.else[0].if.then[0]:httpRequest',
    'steps[1]:httpRequest',
  ]);
  t.deepEqual(
    [...connectionsUsedBy(steps)],
    [['erp', ['steps[0].if.else[0].if.then[0].httpRequest.connection', 'steps[1].httpRequest.connection']]],
  );
});

test('the deferral walk follows the registry: a deferral nested after a responding branch pair is fine, one before is warned', (t) => {
  const flow = (steps: unknown[]) =>
    ({
      company: 'Acme',
      name: 'f',
      trigger: { webhook: { activity: 'a.b', responseMode: 'WAIT_FOR_RESPONSE_STEP' } },
      steps,
    }) as never;
  const warned = validateFlow(
    flow([
      {
        if: {
          condition: '${true}',
          then: [{ waitUntil: { until: '2030-01-01T00:00:00Z' } }, { respond: {} }],
          else: [{ respond: {} }],
        },
      },
      { sleep: { duration: '1s' } },
    ]),
  ).warnings;
  t.deepEqual(warned, [
    'steps[0].if.then[0].waitUntil: a deferral can run before any respond step in WAIT_FOR_RESPONSE_STEP mode; if it runs while the caller still waits, the caller gets HTTP 500',
  ]);
});
