// Outside data cannot make the worker backtrack: an upstream answer of 1 MiB
// of XML tags that never close is judged in one pass, and a formula's regular
// expression runs in linear time on caller text that would keep a
// backtracking engine busy for longer than the age of the universe. On the old
// code the XML answer held the worker's main thread for minutes (under
// `flowhook start`, as in this test's stack, the facade and the engine with
// it: the caller got a 503), and the regex held the workflow thread other
// executions share until the sync window closed with an empty answer.
import test from 'ava';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  failureReasonOf,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';

const MiB = 1024 * 1024;

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  target = await startTargetServer((request) => {
    if (request.path === '/unclosed') return { contentType: 'application/xml', body: '<a'.repeat(MiB / 2) };
    if (request.path === '/nested') return { contentType: 'application/xml', body: '<a>'.repeat(MiB / 3) };
    return {};
  });
  const fetchStep = (path: string) => ({
    name: 'fetch',
    httpRequest: { description: 'Ask the upstream', url: `${target.url}${path}`, timeout: '60s' },
  });
  const flows: Record<string, unknown[]> = {
    'answer.unclosed': [
      fetchStep('/unclosed'),
      {
        respond: {
          description: 'Report',
          statusCode: 200,
          body: '${ {"status": Steps.fetch.status, "length": $length(Steps.fetch.body), "parsed": $exists(Steps.fetch.xml)} }',
        },
      },
    ],
    'answer.nested': [
      fetchStep('/nested'),
      { respond: { description: 'Not reached', statusCode: 200, body: 'parsed' } },
    ],
    'payload.regex': [
      {
        respond: {
          description: 'Judge the caller text',
          statusCode: 200,
          body: '${ {"whole": $contains(Trigger.Payload.text, /^(a+)+$/), "runs": $count($match(Trigger.Payload.text, /(a|aa)+b/))} }',
        },
      },
    ],
  };
  for (const [activity, steps] of Object.entries(flows)) {
    const webhook = { activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 60 };
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), webhook, steps))
    ).secret;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

const call = (activity: string, payloadText = '{}') =>
  callWebhook(stack, { company: tenant.company, activity, secret: secrets[activity]!, auth: tenant.auth, payloadText });

test.serial('a 1 MiB XML answer of tags that never close is kept as text, without stalling the worker', async (t) => {
  const answer = await call('answer.unclosed');
  t.is(answer.status, 200, answer.text);
  t.deepEqual(JSON.parse(answer.value!.body), { status: 200, length: MiB, parsed: false });
});

test.serial('a 1 MiB XML answer that nests without end is refused as too deep', async (t) => {
  const answer = await call('answer.nested');
  t.is(answer.status, 500);
  t.regex((await failureReasonOf(stack, answer)).reason, /the response XML nests deeper than 100 levels/);
});

test.serial('a formula regex judges hostile caller text in linear time, with the right answers', async (t) => {
  const text = `${'a'.repeat(5000)}b`;
  const answer = await call('payload.regex', JSON.stringify({ text }));
  t.is(answer.status, 200, answer.text);
  t.deepEqual(JSON.parse(answer.value!.body), { whole: false, runs: 1 });
});
