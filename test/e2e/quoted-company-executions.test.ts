// Companies whose names hold quotes, in the execution list and bulk re-runs:
// Temporal's SQL visibility stores cannot match such a name, so the engine
// selects the companies whose names start like it and keeps its own. Each
// lists exactly its own executions — also next to a name that differs only in
// its quotes — and the reading is bounded: a name that starts with a quote
// (every company starts like it) no longer reads the whole task queue in
// search of its own, it says the list may be partial.
import test from 'ava';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { SCAN_FACTOR } from '../../engine/domain/executions/company-listing.ts';
import { eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let executions: ReturnType<typeof createClient<typeof ExecutionService>>;
const SINGLE = `Quote's "Co"`;
const DOUBLE = `Quote"s 'Co'`;
const PLAIN = 'Quotes Co';
const LEADING = `'Lead" Co`;
const tenants = new Map<string, Tenant & { secret: string }>();

test.before(async () => {
  stack = await startStack();
  executions = createClient(
    ExecutionService,
    createConnectTransport({
      baseUrl: stack.engineUrl,
      httpVersion: '2',
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${stack.adminToken}`);
          return next(request);
        },
      ],
    }),
  );
  for (const [index, company] of [SINGLE, DOUBLE, PLAIN, LEADING].entries()) {
    const tenant = await createTenant(stack, company);
    const { secret } = await deployFlow(
      stack,
      flow(company, 'greeter', { activity: `greet.q${index}` }, [
        { log: { description: 'Note it', message: 'hello' } },
      ]),
    );
    tenants.set(company, { ...tenant, secret });
  }
});
test.after.always(async () => {
  await stack?.close();
});

async function run(company: string, count: number): Promise<string[]> {
  const tenant = tenants.get(company)!;
  const activity = `greet.q${[SINGLE, DOUBLE, PLAIN, LEADING].indexOf(company)}`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await callWebhook(stack, {
      company,
      activity,
      secret: tenant.secret,
      auth: tenant.auth,
      payloadText: `{"i": ${i}}`,
    });
    if (!answer.executionId) throw new Error(`${company}: ${answer.status} ${answer.text}`);
    ids.push(answer.executionId);
  }
  return ids;
}

test.serial(
  'a company whose name holds quotes lists exactly its own executions, however the quotes differ',
  async (t) => {
    const own = new Map([
      [SINGLE, await run(SINGLE, 2)],
      [DOUBLE, await run(DOUBLE, 2)],
      [PLAIN, await run(PLAIN, 1)],
      [LEADING, await run(LEADING, 1)],
    ]);
    for (const [company, ids] of own) {
      const listed = await eventually(() => executions.listExecutions({ company, limit: 50 }), {
        until: (answer) => answer.executions.length >= ids.length,
        what: `the executions of ${company}`,
      });
      t.deepEqual(listed.executions.map((execution) => execution.executionId).sort(), [...ids].sort(), company);
      t.true(
        listed.executions.every((execution) => execution.company === company),
        company,
      );
      t.false(listed.partial, company);
    }
  },
);

test.serial(
  'the reading behind such a list is bounded: past it the list says it may be partial, and a bulk re-run refuses',
  async (t) => {
    // Newer than the leading-quote company's own execution: every one of them starts like its name ('').
    const others = await run(PLAIN, 2 * SCAN_FACTOR + 1);
    await eventually(() => executions.listExecutions({ company: PLAIN, limit: 100 }), {
      until: (answer) => answer.executions.some((execution) => execution.executionId === others.at(-1)),
      what: 'the newest execution listed',
    });
    const listed = await executions.listExecutions({ company: LEADING, limit: 1 });
    t.true(listed.partial, 'the list says it stopped early');
    t.true(
      listed.executions.every((execution) => execution.company === LEADING),
      'and holds nothing of another company',
    );
    const wider = await executions.listExecutions({ company: LEADING, limit: 50 });
    t.is(wider.executions.length, 1, 'a wider list reads further and finds it');
    t.false(wider.partial);

    const refused = await t.throwsAsync(
      executions.rerunExecutions({ company: LEADING, statuses: ['COMPLETED'], dryRun: true, maxCount: 1 }),
      { instanceOf: ConnectError },
    );
    t.is(refused.code, Code.FailedPrecondition);
    t.regex(
      refused.rawMessage,
      /has a quote or backslash in its name.*stopped after 20 without reaching the end\. Narrow the filter/,
    );
  },
);
