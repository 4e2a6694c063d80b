// flow.schema.json, the JSON Schema editors check flow files with: it must be
// what `flowhook flow schema` prints from flow.proto today, accept every
// example flow, flag the usual mistakes, and never accept a document the CLI
// refuses.
import test from 'ava';
import { globSync, readFileSync } from 'node:fs';
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Ajv, type ErrorObject } from 'ajv';
import { Command } from 'commander';
import { parse } from 'yaml';
import { GetRecordResponseSchema } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { parseFlowText } from '../../bin/cli/flow-file.ts';
import { messageJsonSchema, type JsonSchema } from '../../bin/cli/flow-json-schema.ts';
import { registerFlowSchemaCommand } from '../../bin/cli/flow-schema-command.ts';
import { validateFlow } from '../../flow/flow-validation.ts';

const SCHEMA_FILE = new URL('../../flow.schema.json', import.meta.url);
const ROOT = new URL('../../', import.meta.url);
const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/;

const committed = readFileSync(SCHEMA_FILE, 'utf8');
const schema = JSON.parse(committed) as JsonSchema;

function newAjv(): Ajv {
  // Strict, except that a oneof's `{required: [member]}` names a property declared beside it, not inside.
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  // An annotation of VS Code and yaml-language-server: the text shown beside each enum value.
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  return ajv;
}
const validate = newAjv().compile(schema);

function schemaErrors(document: unknown): ErrorObject[] {
  return validate(document) ? [] : [...(validate.errors ?? [])];
}

function explain(errors: ErrorObject[]): string {
  return errors.map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`).join('; ');
}

/** What `flowhook flow apply` does with the document: the CLI's decision, with its message. */
function cliProblem(document: unknown): string | undefined {
  try {
    parseFlowText('flow.json', JSON.stringify(document));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const examples = globSync('examples/**/*.flow.yaml', { cwd: ROOT })
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, ROOT), 'utf8') }));

test('flow.schema.json is what `flowhook flow schema` prints', async (t) => {
  let out = '';
  let err = '';
  let exitCode = 0;
  const program = new Command('flowhook').exitOverride();
  registerFlowSchemaCommand(program.command('flow'), {
    client: () => t.fail('flow schema needs no engine') as never,
    io: { out: (text) => void (out += text), err: (text) => void (err += text) },
    setExitCode: (code) => void (exitCode = code),
  });
  await program.parseAsync(['flow', 'schema'], { from: 'user' });
  t.is(err, '');
  t.is(exitCode, 0);
  t.is(out, committed, 'flow.schema.json is stale: regenerate it with `npx flowhook flow schema > flow.schema.json`');
});

test('there are example flows, and each names the schema on its first line', (t) => {
  t.true(examples.length >= 4);
  for (const { name, text } of examples) {
    const schemaPath = MODELINE.exec(text.split('\n')[0]!)?.[1];
    t.truthy(schemaPath, `${name} starts with the yaml-language-server modeline`);
    // The modeline's path is relative to the flow file.
    t.is(new URL(schemaPath ?? '', new URL(name, ROOT)).href, SCHEMA_FILE.href, name);
  }
});

test('every example flow is valid by the schema and read by the CLI', (t) => {
  for (const { name, text } of examples) {
    t.deepEqual(explain(schemaErrors(parse(text))), '', name);
    t.notThrows(() => parseFlowText(name, text), name);
  }
});

test('the canonical JSON of every example (as the engine prints a flow) is valid by the schema', (t) => {
  for (const { name, text } of examples) {
    const canonical = toJson(FlowSchema, parseFlowText(name, text));
    t.deepEqual(explain(schemaErrors(canonical)), '', name);
  }
});

const valid = {
  company: 'Default',
  name: 'mistakes',
  trigger: { webhook: { activity: 'test.mistakes', responseMode: 'WAIT_FOR_RESPONSE_STEP' } },
  steps: [{ sleep: { duration: '5s' } }],
};

function withSteps(...steps: unknown[]): unknown {
  return { ...valid, steps };
}

const mistakes: { mistake: string; document: unknown; at: string }[] = [
  {
    mistake: 'an unknown key in a step',
    document: withSteps({ sleep: { duration: '5s' }, descripton: 'typo' }),
    at: '/steps/0',
  },
  {
    mistake: 'an unknown key inside a step kind',
    document: withSteps({ sleep: { duraton: '5s' } }),
    at: '/steps/0/sleep',
  },
  {
    mistake: 'two step kinds in one step',
    document: withSteps({ sleep: { duration: '5s' }, log: { message: 'x' } }),
    at: '/steps/0',
  },
  {
    mistake: 'two step kinds in a step inside `if.then`',
    document: withSteps({ if: { condition: '${true}', then: [{ log: { message: 'x' }, fail: { message: 'y' } }] } }),
    at: '/steps/0/if/then/0',
  },
  {
    mistake: 'two record operations',
    document: withSteps({ record: { table: 'order', key: 'k', get: {}, delete: {} } }),
    at: '/steps/0/record',
  },
  {
    mistake: 'a response mode that does not exist',
    document: { ...valid, trigger: { webhook: { activity: 'a', responseMode: 'WAIT_FOR_RESPONSE' } } },
    at: '/trigger/webhook/responseMode',
  },
  {
    mistake: 'a string where a step kind (an object) is expected',
    document: withSteps({ sleep: '5s' }),
    at: '/steps/0/sleep',
  },
  { mistake: 'a string where the trigger is expected', document: { ...valid, trigger: 'webhook' }, at: '/trigger' },
  {
    mistake: 'a fraction where an int32 is expected',
    document: { ...valid, trigger: { webhook: { activity: 'a', syncTimeoutSeconds: 1.5 } } },
    at: '/trigger/webhook/syncTimeoutSeconds',
  },
  {
    mistake: 'a number as a header value',
    document: withSteps({ httpRequest: { url: 'https://x.example', headers: { 'X-Count': 1 } } }),
    at: '/steps/0/httpRequest/headers/X-Count',
  },
  {
    mistake: 'a list where variables (a Struct) are expected',
    document: withSteps({ set: { variables: ['orderId'] } }),
    at: '/steps/0/set/variables',
  },
  { mistake: 'steps as a mapping', document: { ...valid, steps: { sleep: { duration: '5s' } } }, at: '/steps' },
];

for (const { mistake, document, at } of mistakes) {
  test(`the schema flags ${mistake}, and the CLI refuses it too`, (t) => {
    const errors = schemaErrors(document);
    t.true(
      errors.some((error) => error.instancePath === at),
      `expected an error at ${at}, got: ${explain(errors) || 'none'}`,
    );
    t.truthy(cliProblem(document), 'a document the schema refuses here is refused by `flow apply` as well');
  });
}

// fromJson also reads these; the schema asks for the one spelling flow files use.
const lenient: { spelling: string; document: unknown }[] = [
  {
    spelling: 'a proto field name (response_mode)',
    document: { ...valid, trigger: { webhook: { activity: 'a', response_mode: 'INSTANT_RETURN' } } },
  },
  { spelling: 'an enum number', document: { ...valid, trigger: { webhook: { activity: 'a', responseMode: 2 } } } },
  {
    spelling: 'the *_UNSPECIFIED enum value',
    document: { ...valid, trigger: { webhook: { activity: 'a', responseMode: 'RESPONSE_MODE_UNSPECIFIED' } } },
  },
  {
    spelling: 'an int32 as text',
    document: { ...valid, trigger: { webhook: { activity: 'a', syncTimeoutSeconds: '30' } } },
  },
  { spelling: 'null for "not set"', document: { ...valid, description: null } },
];

for (const { spelling, document } of lenient) {
  test(`the schema asks for the canonical spelling instead of ${spelling}`, (t) => {
    t.is(cliProblem(document), undefined);
    t.not(explain(schemaErrors(document)), '');
  });
}

test('a step without a kind is flagged by the schema as publishing flags it, though a draft may hold it', (t) => {
  const document = withSteps({ name: 'nothing' });
  t.true(schemaErrors(document).some((error) => error.instancePath === '/steps/0'));
  t.is(cliProblem(document), undefined);
  t.true(
    validateFlow(toJson(FlowSchema, fromJson(FlowSchema, document as never)) as never).errors.some((error) =>
      error.startsWith('steps[0]: has no step type'),
    ),
  );
});

test('completions offer the flow-file names with the comments of flow.proto', (t) => {
  const definitions = schema.definitions ?? {};
  const webhook = definitions['flowhook.flow.v1.WebhookTrigger']!;
  t.deepEqual(Object.keys(webhook.properties ?? {}), [
    'description',
    'activity',
    'responseMode',
    'syncTimeoutSeconds',
    'defaultResponseStatusCode',
    'defaultResponseContentType',
    'doNotLogPayload',
    'direct',
    'concurrency',
    'throttle',
    'debounce',
    'batch',
    'idempotencyKey',
    'idempotencyWindow',
    'priority',
  ]);
  // Flow control's messages carry flow.proto's comments too (the handbook's generated reference reads them).
  t.regex(
    definitions['flowhook.flow.v1.ConcurrencyControl']?.properties?.limit?.description ?? '',
    /How many executions of one key may run at once/,
  );
  // A provider route names exactly one verification scheme, as publishing requires.
  t.deepEqual(
    definitions['flowhook.flow.v1.DirectVerification']?.oneOf?.map((clause) => clause.required),
    [['standardWebhooks'], ['stripe'], ['github'], ['slack'], ['shopify'], ['hmac']],
  );
  t.regex(schema.properties?.company?.description ?? '', /^Company whose data the flow runs in/);
  t.deepEqual(webhook.properties?.responseMode?.enum, ['INSTANT_RETURN', 'WAIT_FOR_RESPONSE_STEP']);
  t.regex(webhook.properties?.responseMode?.enumDescriptions?.[1] ?? '', /waits for a respond step/);
  // A wrapped comment reads as one line.
  t.is(
    definitions['flowhook.flow.v1.RecordStep']?.properties?.expectedVersion?.description,
    'Optional template yielding the version the record must have (optimistic concurrency for modify, upsert and delete); a different version fails the step.',
  );
  t.deepEqual(Object.keys(definitions['flowhook.flow.v1.Step']?.properties ?? {}), [
    'name',
    'respond',
    'sleep',
    'waitUntil',
    'set',
    'if',
    'httpRequest',
    'log',
    'fail',
    'record',
    'waitForCallback',
  ]);
});

test('64-bit integers, timestamps and structs follow the JSON mapping too (engine messages)', (t) => {
  const validateRecord = newAjv().compile(messageJsonSchema(GetRecordResponseSchema));
  const response = create(GetRecordResponseSchema, {
    record: {
      table: 'order',
      key: 'A-1',
      data: { status: 'new', lines: [1, 2] },
      version: 9007199254740993n,
      createdAt: timestampFromDate(new Date('2026-01-02T03:04:05.678Z')),
    },
  });
  const canonical = toJson(GetRecordResponseSchema, response) as { record: Record<string, unknown> };
  t.is(canonical.record.version, '9007199254740993');
  t.true(validateRecord(canonical), explain(validateRecord.errors ?? []));
  const asNumber = { record: { ...canonical.record, version: 12 } };
  t.notThrows(() => fromJson(GetRecordResponseSchema, asNumber));
  t.true(validateRecord(asNumber), explain(validateRecord.errors ?? []));
  for (const wrong of [{ version: '1.5' }, { createdAt: 'yesterday' }, { data: 'text' }]) {
    const document = { record: { ...canonical.record, ...wrong } };
    t.false(validateRecord(document), JSON.stringify(wrong));
    t.throws(() => fromJson(GetRecordResponseSchema, document as never), undefined, JSON.stringify(wrong));
  }
});
