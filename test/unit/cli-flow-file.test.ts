// Flow files as a flow author writes them: YAML or JSON into Flow messages,
// and mistakes reported with the file, the place and the problem.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResponseMode } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { FlowFileError, readFlowFile } from '../../bin/cli/flow-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'flowhook-flow-file-'));
let counter = 0;
function file(extension: string, text: string): string {
  const path = join(dir, `flow-${++counter}${extension}`);
  writeFileSync(path, text);
  return path;
}

async function problem(t: import('ava').ExecutionContext, path: string): Promise<string> {
  const error = await t.throwsAsync(readFlowFile(path));
  t.true(error instanceof FlowFileError, String(error));
  t.true(error!.message.startsWith(path), error!.message);
  t.false(/\n\s+at /.test(error!.message), 'no stack trace in the message');
  return error!.message;
}

// A complete flow file (every trigger field, a respond body formula, a sleep), without the `record` step.
const EXAMPLE_FLOW = `company: Default
name: payment-callback
description: Payment provider callback that updates the invoice
trigger:
  webhook:
    description: Payment provider posts a payment status
    activity: payments.provider.callback
    responseMode: WAIT_FOR_RESPONSE_STEP     # or INSTANT_RETURN (default)
    syncTimeoutSeconds: 30
    defaultResponseStatusCode: 200
    defaultResponseContentType: application/json
    doNotLogPayload: false
steps:
  - set:     { description: Read the order, variables: { orderId: "\${Trigger.Payload.order.id}" } }
  - respond: { description: Acknowledge, statusCode: 201, contentType: application/json,
               body: '\${ {"orderId": Variables.orderId, "status": "accepted"} }' }
  - sleep:   { description: Let the provider settle, duration: 5s }
`;

test('a complete example flow parses', async (t) => {
  const flow = await readFlowFile(file('.yaml', EXAMPLE_FLOW));
  t.is(flow.company, 'Default');
  t.is(flow.name, 'payment-callback');
  const trigger = flow.trigger?.kind;
  t.is(trigger?.case, 'webhook');
  t.is(trigger?.value?.activity, 'payments.provider.callback');
  t.is(trigger?.value?.responseMode, ResponseMode.WAIT_FOR_RESPONSE_STEP);
  t.is(trigger?.value?.syncTimeoutSeconds, 30);
  t.deepEqual(
    flow.steps.map((step) => step.kind.case),
    ['set', 'respond', 'sleep'],
  );
  const [set, respond, sleep] = flow.steps.map((step) => step.kind);
  t.deepEqual(set?.case === 'set' ? set.value.variables : undefined, { orderId: '${Trigger.Payload.order.id}' });
  t.is(
    respond?.case === 'respond' ? respond.value.body : undefined,
    '${ {"orderId": Variables.orderId, "status": "accepted"} }',
  );
  t.deepEqual(respond?.case === 'respond' ? respond.value.statusCode?.kind : undefined, {
    case: 'numberValue',
    value: 201,
  });
  t.is(sleep?.case === 'sleep' ? sleep.value.duration : undefined, '5s');
});

test('named steps and nested if steps in block YAML (.yml)', async (t) => {
  const flow = await readFlowFile(
    file(
      '.yml',
      `company: Acme
name: branching
trigger: { webhook: { activity: acme.branch } }
steps:
  - name: pick
    set:
      variables: { kind: "\${Trigger.Payload.kind}" }
  - if:
      condition: "\${Variables.kind = 'a'}"
      then:
        - respond: { statusCode: 200, body: 'A' }
      else:
        - fail: { message: not a }
`,
    ),
  );
  t.is(flow.steps[0]?.name, 'pick');
  const branch = flow.steps[1]?.kind;
  t.is(branch?.case, 'if');
  if (branch?.case !== 'if') return;
  t.is(branch.value.then[0]?.kind.case, 'respond');
  t.is(branch.value.else[0]?.kind.case, 'fail');
  t.is(flow.trigger?.kind.value?.responseMode, ResponseMode.RESPONSE_MODE_UNSPECIFIED);
});

test('a JSON flow file parses into the same message', async (t) => {
  const flow = await readFlowFile(
    file(
      '.json',
      JSON.stringify({
        company: 'Default',
        name: 'json-flow',
        trigger: { webhook: { activity: 'json.flow', responseMode: 'INSTANT_RETURN', defaultResponseStatusCode: 202 } },
        steps: [
          { httpRequest: { method: 'POST', url: 'https://example.com', headers: { 'x-a': 'b' }, maxAttempts: 2 } },
          { log: { message: 'done' } },
        ],
      }),
    ),
  );
  t.is(flow.trigger?.kind.value?.defaultResponseStatusCode, 202);
  const call = flow.steps[0]?.kind;
  t.is(call?.case, 'httpRequest');
  t.deepEqual(call?.case === 'httpRequest' ? call.value.headers : undefined, { 'x-a': 'b' });
});

test('bad YAML names the file and the line', async (t) => {
  const message = await problem(t, file('.yaml', 'company: Default\nname: [broken\ntrigger: {}\n'));
  t.regex(message, /:\d+:\d+: invalid YAML: /);
});

test('bad JSON names the file', async (t) => {
  const message = await problem(t, file('.json', '{"company": "Default",}'));
  t.regex(message, /invalid JSON/);
});

test('an unknown field is named with its path and line', async (t) => {
  const message = await problem(
    t,
    file('.yaml', 'company: Default\nname: x\nsteps:\n  - log: { message: hi }\n  - teleport: { to: mars }\n'),
  );
  t.regex(message, /:5:5: steps\[1\]\.teleport: unknown field "teleport"/);
  t.regex(message, /respond, sleep/, 'lists the step kinds that exist');
});

test('a near-miss field name gets a suggestion', async (t) => {
  const message = await problem(
    t,
    file('.yaml', 'company: Default\ntrigger:\n  webhook:\n    ResponseMode: INSTANT_RETURN\n'),
  );
  t.regex(message, /trigger\.webhook\.ResponseMode: unknown field .*did you mean "responseMode"/);
});

test('a secret in the trigger is refused with an explanation', async (t) => {
  const message = await problem(
    t,
    file(
      '.yaml',
      'company: Default\nname: x\ntrigger:\n  webhook:\n    activity: a\n    secret: hunter2hunter2hunter2hunter2abcd\n',
    ),
  );
  t.regex(message, /:6:5: trigger\.webhook\.secret: secrets are never stored in flow files/);
  t.regex(message, /flowhook secret rotate/);
  t.false(message.includes('hunter2'), 'the secret value itself is not echoed');
});

test('a variable named secret in a set step is just data', async (t) => {
  const flow = await readFlowFile(
    file('.yaml', 'company: Default\nname: x\nsteps:\n  - set: { variables: { secret: "${Trigger.Payload.s}" } }\n'),
  );
  t.is(flow.steps[0]?.kind.case, 'set');
});

test('a wrong enum value names the allowed values', async (t) => {
  const message = await problem(t, file('.yaml', 'company: Default\ntrigger:\n  webhook:\n    responseMode: WAIT\n'));
  t.regex(
    message,
    /:4:19: trigger\.webhook\.responseMode: unknown value "WAIT"; expected one of INSTANT_RETURN, WAIT_FOR_RESPONSE_STEP/,
  );
});

test('a wrong type names the field and what was expected', async (t) => {
  const message = await problem(
    t,
    file('.json', '{\n  "company": "Default",\n  "trigger": {"webhook": {"syncTimeoutSeconds": "soon"}}\n}\n'),
  );
  t.regex(message, /:3:\d+: trigger\.webhook\.syncTimeoutSeconds: expected number \(int32\), got "soon"/);
  const list = await problem(t, file('.yaml', 'company: Default\nsteps:\n  respond: {}\n'));
  t.regex(list, /steps: expected a list, got a mapping/);
});

test('two step kinds in one step are refused', async (t) => {
  const message = await problem(
    t,
    file('.yaml', 'company: Default\nsteps:\n  - respond: { statusCode: 200 }\n    sleep: { duration: 1s }\n'),
  );
  t.regex(message, /steps\[0\]\.sleep: "respond" and "sleep" cannot both be set/);
});

test('empty and missing files', async (t) => {
  t.regex(await problem(t, file('.yaml', '# nothing here\n')), /the file is empty/);
  t.regex(await problem(t, join(dir, 'absent.yaml')), /no such file/);
  t.regex(await problem(t, file('.yaml', '- just\n- a list\n')), /expected a mapping of Flow fields, got a list/);
});

test('the example flow that `flowhook start` publishes parses', async (t) => {
  const flow = await readFlowFile(new URL('../../examples/flows/hello-webhook.flow.yaml', import.meta.url).pathname);
  t.is(flow.name, 'hello-webhook');
  t.true(flow.steps.length > 0);
});
