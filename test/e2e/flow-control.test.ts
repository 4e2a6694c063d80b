// Flow control as callers and operators see it, on the dev server: per-key
// concurrency, throttle, a payload-derived idempotency key, priority, and
// pause/resume. What ran when is observed from outside — by when each
// execution's httpRequest reached a local server — never from internals.
// (Debounce and batch: flow-collect.test.ts; each control across a kill -9
// of the worker: flow-control-crash.test.ts.)
import test from 'ava';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';
import { overlapping, startIntervalServer } from '../support/interval-server.ts';
import { eventually } from '../support/eventually.ts';
import { FLOW_KEY, FLOW_WAIT_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import type { FlowWorkflow } from '../../flow/index.ts';
import type { GateState } from '../../flow/flow-control-contract.ts';
import { gateStateQuery } from '../../flow/flow-control-messages.ts';
import { sample, scrape } from '../support/metrics-samples.ts';
import { createClient, type Client } from '@connectrpc/connect';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';

let stack: TestStack;
let tenant: Tenant;
let executions: Client<typeof ExecutionService>;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Controlled Ltd.');
  executions = createClient(
    ExecutionService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  );
});
test.after.always(async () => stack?.close());

const engineMetric = async (labels: Record<string, string>) =>
  sample(
    await scrape(`http://127.0.0.1:${stack.engine.metrics!.port}/metrics`),
    'flowhook_engine_flow_control_calls_total',
    { company: tenant.company, ...labels },
  );

/** One step: POST to the interval server, so the test sees when the execution ran. */
const post = (url: string, path: string, body = '{"n": ${Trigger.Payload.n}}') => [
  { httpRequest: { description: 'report', url: `${url}${path}`, method: 'POST', body } },
];

async function deploy(name: string, webhook: Record<string, unknown>, steps: unknown[]): Promise<string> {
  const { secret } = await deployFlow(
    stack,
    flow(tenant.company, name, { activity: `control.${name}`, ...webhook }, steps),
  );
  return secret;
}

const call = (name: string, secret: string, payload: unknown, headers?: Record<string, string>) =>
  callWebhook(stack, {
    company: tenant.company,
    activity: `control.${name}`,
    secret,
    auth: tenant.auth,
    payloadText: JSON.stringify(payload),
    headers,
  });

test('20 concurrent calls with one concurrency key never overlap; 20 calls with 20 keys do overlap; waiting executions run in arrival order', async (t) => {
  const serial = await startIntervalServer({ holdMs: 150 });
  const ordered = await startIntervalServer({ holdMs: 0, holdFirst: true });
  const parallel = await startIntervalServer({ holdMs: 20_000, releaseAt: 2 });
  t.teardown(() => Promise.all([serial.close(), parallel.close(), ordered.close()]));
  const concurrency = { key: '${Trigger.Payload.invoice}', limit: 1 };
  const oneKey = await deploy('one-key', { concurrency }, post(serial.url, '/run'));
  const manyKeys = await deploy('many-keys', { concurrency }, post(parallel.url, '/run'));

  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, n) => call('one-key', oneKey, { invoice: 'INV-1', n })),
  );
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(20).fill(200),
    'every call is accepted at once (Instant return)',
  );
  const ran = await serial.waitForAnswered(20);
  t.false(overlapping(ran), 'one key: no two executions ran at the same time');
  t.deepEqual(new Set(ran.map((interval) => JSON.parse(interval.body).n)).size, 20, 'each call ran once');

  const spread = await Promise.all(
    Array.from({ length: 20 }, (_, n) => call('many-keys', manyKeys, { invoice: `INV-${n}`, n })),
  );
  t.deepEqual(
    spread.map((answer) => answer.status),
    Array(20).fill(200),
  );
  await parallel.waitForAnswered(20);
  t.true(parallel.maxInFlight() >= 2, 'different keys: executions ran at the same time');

  // Arrival order: while the first execution holds the key, calls made one after another wait and run in that order.
  const inOrder = await deploy('in-order', { concurrency }, post(ordered.url, '/run'));
  t.is((await call('in-order', inOrder, { invoice: 'INV-9', n: 0 })).status, 200);
  await eventually(() => ordered.intervals.length === 1, { what: 'the first execution holds the key' });
  for (let n = 1; n < 10; n++) t.is((await call('in-order', inOrder, { invoice: 'INV-9', n })).status, 200);
  ordered.releaseFirst();
  const runs = await ordered.waitForAnswered(10);
  t.deepEqual(
    runs.sort((a, b) => a.start - b.start).map((interval) => JSON.parse(interval.body).n),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );

  // Visible: the key in the execution's search attributes, the wait in FlowWaitMs, and `execution list --key`.
  const listed = await eventually(
    () => executions.listExecutions({ company: tenant.company, flowName: 'one-key', key: 'INV-1', limit: 50 }),
    {
      until: (response) =>
        response.executions.length === 20 && response.executions.every((e) => e.status === 'COMPLETED'),
      what: 'execution list --key INV-1 shows the 20 completed executions',
      timeoutMs: 30_000,
    },
  );
  t.true(listed.executions.every((e) => e.keys.includes('INV-1')));
  t.true(
    listed.executions.some((e) => e.waitedMs > 0n),
    'executions that waited say how long',
  );
  const shown = await executions.getExecution({ executionId: answers[0]!.executionId! });
  t.deepEqual(shown.execution?.keys, ['INV-1'], 'execution show names the key too');
  const description = await stack.temporal.workflow.getHandle(answers[0]!.executionId!).describe();
  t.deepEqual(description.typedSearchAttributes.get(FLOW_KEY), ['INV-1']);
  t.not(description.typedSearchAttributes.get(FLOW_WAIT_KEY), undefined);
  t.regex((await description.staticSummary()) ?? '', /key INV-1/);
  const other = await executions.listExecutions({ company: tenant.company, key: 'INV-13', limit: 50 });
  t.deepEqual(
    other.executions.map((e) => e.flowName),
    ['many-keys'],
    'the filter matches the key exactly (not INV-1)',
  );
});

test('Wait for Response step with a concurrency key: a caller whose execution waits for the key gets the default answer when its sync window closes, and the execution runs later', async (t) => {
  const server = await startIntervalServer({ holdMs: 0, holdFirst: true });
  t.teardown(() => server.close());
  const secret = await deploy(
    'sync-key',
    // A window that fits the first execution's way through its gate on a loaded machine (the second caller waits it out).
    {
      responseMode: 'WAIT_FOR_RESPONSE_STEP',
      syncTimeoutSeconds: 10,
      defaultResponseStatusCode: 202,
      concurrency: { key: '${Trigger.Payload.invoice}' },
    },
    [{ respond: { statusCode: 201, body: 'done ${Trigger.Payload.n}' } }, ...post(server.url, '/after-respond')],
  );
  const first = await call('sync-key', secret, { invoice: 'INV-5', n: 1 });
  t.is(first.value?.statusCode, 201, 'the first call holds the key and is answered by its respond step');
  await eventually(() => server.intervals.length === 1, {
    what: 'the first execution holds the key in its httpRequest',
  });
  const second = await call('sync-key', secret, { invoice: 'INV-5', n: 2 });
  t.is(second.status, 200);
  t.deepEqual(
    [second.value?.statusCode, second.headers.get('x-flowhook-outcome')],
    [202, 'sync-timeout'],
    'the default answer once the window closed',
  );
  server.releaseFirst();
  const ran = await server.waitForAnswered(2);
  t.false(overlapping(ran));
  const late = await stack.temporal.workflow.getHandle<FlowWorkflow>(second.executionId!).result();
  t.is(late.outcome, 'SYNC_TIMEOUT');
  t.true(
    late.steps.some((step) => step.type === 'respond' && /late answer/.test(step.note ?? '')),
    'its respond step ran after the window: kept as the late answer',
  );
});

test('a key formula that fails for a call refuses it with 400, naming the field and not the payload; nothing starts', async (t) => {
  const secret = await deploy('bad-key', { concurrency: { key: '${$number(Trigger.Payload.invoice)}' } }, []);
  const refused = await call('bad-key', secret, { invoice: 'INV-SECRET-9' });
  t.is(refused.status, 400);
  t.regex(refused.text, /trigger\.webhook\.concurrency\.key: the key could not be computed for this call/);
  t.false(refused.text.includes('INV-SECRET-9'));
  t.is((await call('bad-key', secret, { invoice: '42' })).status, 200, 'a payload the formula can read is accepted');
  t.is(refused.executionId, null);
  // The accepted call's execution is listed; the refused one never was (it is the earlier of the two).
  const listed = await eventually(
    () => executions.listExecutions({ company: tenant.company, activity: 'control.bad-key' }),
    {
      until: (response) => response.executions.length > 0,
      what: 'the accepted call is listed',
    },
  );
  t.is(listed.executions.length, 1);
});

test('a slot held by an execution an operator terminated is given to the next one (the coordinator asks Temporal about its holders)', async (t) => {
  t.timeout(5 * 60_000);
  const server = await startIntervalServer({ holdMs: 0, holdFirst: true });
  t.teardown(() => server.close());
  const secret = await deploy(
    'terminated-holder',
    { concurrency: { key: '${Trigger.Payload.invoice}' } },
    post(server.url, '/run'),
  );
  const holder = await call('terminated-holder', secret, { invoice: 'INV-T', n: 1 });
  await eventually(() => server.intervals.length === 1, { what: 'the first execution holds the key' });
  const waiting = await call('terminated-holder', secret, { invoice: 'INV-T', n: 2 });
  // Terminated, it cannot give its slot back itself.
  await stack.temporal.workflow.getHandle(holder.executionId!).terminate('operator');
  // The terminated holder's request stays held at the server: the first answered one is the waiting execution's.
  const [next] = await server.waitForAnswered(1, '/run', 4 * 60_000);
  t.is(JSON.parse(next!.body).n, 2);
  t.is(
    (await stack.temporal.workflow.getHandle<FlowWorkflow>(waiting.executionId!).result()).outcome,
    'INSTANT_RETURN',
  );
});

test('throttled calls are all accepted (no 429) and their executions start at the set rate', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy('throttled', { throttle: { perSecond: 2, burst: 1 } }, post(server.url, '/start'));
  const answers = await Promise.all(Array.from({ length: 10 }, (_, n) => call('throttled', secret, { n })));
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(10).fill(200),
    'no call is refused',
  );
  const started = (await server.waitForAnswered(10)).map((interval) => interval.start).sort((a, b) => a - b);
  // At 2/s with a burst of 1 the 10th start is granted 4.5 s after the first. Grants come from Temporal
  // timers, which never fire early, so the observed spread can only exceed 4.5 s by the time the
  // requests take to arrive — except by the first request's own delay (up to a second on a loaded
  // 2-core machine), which the 1 s tolerance covers. No upper bound: a slow machine is slower, never faster.
  t.true(started.at(-1)! - started[0]! >= 3500, `10 starts at 2/s spread over ${started.at(-1)! - started[0]!} ms`);
});

test('a payload-derived idempotency key joins a repeat to the first execution, also one whose body differs (said in the log); a header wins', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy(
    'keyed',
    { idempotencyKey: '${Trigger.Payload.event.id}' },
    post(server.url, '/event', '{"n": ${Trigger.Payload.n}}'),
  );
  const payload = { event: { id: 'evt_1' }, n: 1 };
  const first = await call('keyed', secret, payload);
  const again = await call('keyed', secret, payload);
  t.is(first.status, 200);
  t.is(again.executionId, first.executionId, 'the repeat joins the first execution');
  await server.waitForAnswered(1);
  const result = await stack.temporal.workflow.getHandle(first.executionId!).result();
  t.is(result.outcome, 'INSTANT_RETURN');
  const afterwards = await call('keyed', secret, payload);
  t.is(afterwards.executionId, first.executionId, 'also after the first execution closed');

  // A provider's redelivery of the same event with another attempt counter: the key is the flow's statement of identity.
  const redelivered = await call('keyed', secret, { event: { id: 'evt_1' }, n: 2, attempt: 2 });
  t.is(redelivered.status, 200, 'never a 4xx for a redelivery');
  t.is(redelivered.executionId, first.executionId, 'it joins the first execution whatever its body');
  const synced = await deploy(
    'keyed-sync',
    { idempotencyKey: '${Trigger.Payload.event.id}', responseMode: 'WAIT_FOR_RESPONSE_STEP' },
    [{ respond: { statusCode: 201, body: 'first ${Trigger.Payload.n}' } }],
  );
  const firstSync = await call('keyed-sync', synced, { event: { id: 'evt_s' }, n: 1 });
  const againSync = await call('keyed-sync', synced, { event: { id: 'evt_s' }, n: 2 });
  t.is(againSync.executionId, firstSync.executionId);
  t.is(againSync.value?.body, 'first 1', "a sync repeat with another body gets the first call's answer");

  const headed = await call('keyed', secret, payload, { 'Idempotency-Key': 'header-1' });
  t.is(headed.status, 200);
  t.not(headed.executionId, first.executionId, 'a header wins over the payload key');
  const unkeyed = await call('keyed', secret, { n: 3 });
  t.not(unkeyed.executionId, first.executionId, 'a payload without the key is an unkeyed call');
  await server.waitForAnswered(3);
  t.is(
    server.intervals.filter((interval) => JSON.parse(interval.body).n === 1).length,
    2,
    'payload 1 ran twice: once for its key, once for the header',
  );
  t.is(await engineMetric({ activity: 'control.keyed', control: 'deduplicated' }), 3);
  t.is(await engineMetric({ activity: 'control.keyed-sync', control: 'deduplicated' }), 1);
});

test('a paused flow accepts calls and holds their executions; resume runs them once each; both are audited', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy('pausable', {}, post(server.url, '/resumed'));
  const paused = await stack.admin.pauseFlow({ company: tenant.company, name: 'pausable' });
  t.true(paused.changed);
  t.truthy(paused.flow?.pausedAt);

  const answers: string[] = [];
  for (const n of [1, 2, 3]) {
    const answer = await call('pausable', secret, { n });
    t.is(answer.status, 200, 'a paused flow still accepts calls');
    answers.push(answer.executionId!);
  }
  // Held: the flow's pause gate holds the three — an event, not a sleep — and each has run nothing yet.
  const gate = await eventually(() => gateState('flowPauseGateWorkflow', 'pausable'), {
    until: (state) => state?.waiting === 3,
    what: 'the pause gate holds the three executions',
  });
  t.deepEqual(gate!.first.map((entry) => entry.executionId).sort(), [...answers].sort());
  for (const executionId of answers) {
    const shown = await executions.getExecution({ executionId });
    t.is(shown.execution?.status, 'RUNNING');
    t.deepEqual(shown.steps, [], 'no step ran while the flow was paused');
    t.is(shown.answer?.outcome, 'INSTANT_RETURN', 'its caller got the default answer');
  }
  t.is(server.intervals.length, 0, 'nothing ran while the flow was paused');
  t.is(await engineMetric({ activity: 'control.pausable', control: 'held' }), 3);

  const resumed = await stack.admin.resumeFlow({ company: tenant.company, name: 'pausable' });
  t.true(resumed.changed);
  const ran = await server.waitForAnswered(3);
  t.deepEqual(ran.map((interval) => JSON.parse(interval.body).n).sort(), [1, 2, 3]);
  for (const executionId of answers) {
    const description = await stack.temporal.workflow.getHandle(executionId).describe();
    t.true(Number(description.typedSearchAttributes.get(FLOW_WAIT_KEY)) > 0, 'it says how long it was held');
  }
  const after = await call('pausable', secret, { n: 4 });
  t.is(after.status, 200);
  await server.waitForAnswered(4);
  const audit = await createClient(
    AuditService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  ).listAuditEvents({ action: 'flow', limit: 50 });
  t.deepEqual(
    audit.events
      .map((event) => event.action)
      .filter((action) => action === 'flow.pause' || action === 'flow.resume')
      .sort(),
    ['flow.pause', 'flow.resume'],
  );
});

/** What a flow's running gate of this type holds (its flowhookGateState query), found by its summary. */
async function gateState(type: string, flowName: string): Promise<GateState | undefined> {
  for await (const info of stack.temporal.workflow.list({
    query: `WorkflowType = "${type}" AND TaskQueue = "${stack.taskQueue}" AND ExecutionStatus = "Running"`,
  })) {
    const handle = stack.temporal.workflow.getHandle(info.workflowId);
    const summary = await (await handle.describe()).staticSummary();
    if (!summary?.includes(flowName)) continue;
    return handle.query(gateStateQuery);
  }
  return undefined;
}
