// `flowhook execution list|show` against a real engine: executions found by
// company and activity, steps with descriptions and status, the payload
// unless doNotLogPayload, never the secret.
import test from 'ava';
import { executionCliAgainst } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
const secrets: Record<string, string> = {};
const executions: Record<string, string> = {};
const steps = [
  { set: { description: 'Read the card', variables: { card: '${Trigger.Payload.card}' } } },
  { log: { description: 'Note the card', message: 'card {{Variables.card}}' } },
];

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Exec Co');
  secrets.open = (await deployFlow(stack, flow(tenant.company, 'open', { activity: 'exec.open' }, steps))).secret;
  secrets.hidden = (
    await deployFlow(stack, flow(tenant.company, 'hidden', { activity: 'exec.hidden', doNotLogPayload: true }, steps))
  ).secret;
  for (const name of ['open', 'hidden']) {
    const answer = await callWebhook(stack, {
      company: tenant.company,
      activity: `exec.${name}`,
      secret: secrets[name]!,
      auth: tenant.auth,
      payloadText: `{"card": "CARD-${name}"}`,
    });
    executions[name] = answer.executionId!;
    await stack.engine.client.workflow.getHandle(answer.executionId!).result();
  }
});
test.after.always(async () => {
  await stack?.close();
});

const cli = (...args: string[]) => executionCliAgainst(stack, stack.adminToken)(...args);

test('execution list filters by company and activity', async (t) => {
  // Temporal's visibility store is eventually consistent: wait until both executions are listed.
  const list = async (): Promise<{ executions: { executionId: string }[] }> =>
    JSON.parse((await cli('execution', 'list', '--company', tenant.company, '--json')).out);
  const listed = await eventually(list, {
    until: (answer) => answer.executions.length >= 2,
    what: 'both executions listed',
  });
  t.deepEqual(
    listed.executions.map((e: { executionId: string }) => e.executionId).sort(),
    [executions.hidden, executions.open].sort(),
  );
  const open = JSON.parse(
    (await cli('execution', 'list', '--company', tenant.company, '--activity', 'exec.open', '--json')).out,
  );
  t.deepEqual(
    open.executions.map((e: { executionId: string; status: string }) => [e.executionId, e.status]),
    [[executions.open, 'COMPLETED']],
  );
  t.regex(
    (await cli('execution', 'list', '--company', tenant.company)).out,
    /EXECUTION\s+COMPANY\s+ACTIVITY\s+VERSION\s+OUTCOME\s+STATUS\s+STARTED/,
  );
  // The console's filters, on the command line too: state, start time, caller.
  const byFilter = async (...filter: string[]) =>
    (
      JSON.parse((await cli('execution', 'list', '--company', tenant.company, ...filter, '--json')).out) as {
        executions: { executionId: string }[];
      }
    ).executions.length;
  t.is(await byFilter('--status', 'COMPLETED', '--activity', 'exec.open'), 1);
  t.is(await byFilter('--status', 'running,failed', '--activity', 'exec.open'), 0);
  t.is(await byFilter('--since', '2999-01-01T00:00:00Z'), 0);
  t.is(await byFilter('--caller', 'user:nobody-at-all'), 0);
});

test('execution show lists the steps with descriptions and the payload, never the secret', async (t) => {
  const shown = await cli('execution', 'show', executions.open!);
  t.is(shown.code, 0, shown.err);
  t.regex(shown.out, /Payload\s+\{"card": "CARD-open"\}/);
  // The execution log starts with the trigger and its description, then the steps.
  t.regex(shown.out, /trigger\s+webhook\s+trigger of open\s+completed\s+0\s+activity exec\.open · instant return/);
  t.regex(shown.out, /steps\[1\]\s+log\s+Note the card\s+completed\s+\d+\s+card CARD-open/);
  t.false(shown.out.includes(secrets.open!));
  const json = JSON.parse((await cli('execution', 'show', executions.open!, '--json')).out);
  t.is(json.execution.company, tenant.company);
  t.deepEqual(
    json.steps.map((s: { description: string }) => s.description),
    ['trigger of open', 'Read the card', 'Note the card'],
  );
});

test('execution show withholds the payload of a doNotLogPayload execution', async (t) => {
  const json = JSON.parse((await cli('execution', 'show', executions.hidden!, '--json')).out);
  t.true(json.payloadWithheld);
  t.false(JSON.stringify(json).includes('CARD-hidden'));
  // The trigger's description is flow metadata, not payload: shown for doNotLogPayload flows too.
  t.like(json.steps[0], {
    path: 'trigger',
    type: 'webhook',
    description: 'trigger of hidden',
    note: 'activity exec.hidden · instant return',
  });
  t.regex((await cli('execution', 'show', executions.hidden!)).out, /Payload\s+\(withheld: doNotLogPayload\)/);
});

test('an unknown execution is not_found with exit code 1', async (t) => {
  const shown = await cli('execution', 'show', 'no-such-execution', '--json');
  t.is(shown.code, 1);
  t.is(JSON.parse(shown.out).error.code, 'not_found');
});
