// Debounce and batch as callers see them, on the dev server: calls coalesce
// into one execution, or are collected into batches, and each execution's
// httpRequest tells a local server what it saw (Trigger.Coalesced,
// Trigger.Batch). Publishing refuses them for Wait for Response step.
import test from 'ava';
import { ConnectError } from '@connectrpc/connect';
import { startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  countExecutions,
  createTenant,
  deployFlow,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';
import { startIntervalServer } from '../support/interval-server.ts';
import { eventually } from '../support/eventually.ts';
import { FLOW_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { sample, scrape } from '../support/metrics-samples.ts';
import { historyText } from '../support/history-text.ts';
import {
  COLLECTOR_WORKFLOW_TYPE,
  CONCURRENCY_WORKFLOW_TYPE,
  DEBOUNCE_DEFAULT_MAX_WAIT_PATCH,
  type CollectedCall,
  type CollectorInput,
} from '../../flow/flow-control-contract.ts';
import { collectCallUpdate } from '../../flow/flow-control-messages.ts';
import type { FlowWorkflow } from '../../flow/index.ts';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

let stack: TestStack;
let tenant: Tenant;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Collecting Ltd.');
});
test.after.always(async () => stack?.close());

async function deploy(name: string, webhook: Record<string, unknown>, steps: unknown[]): Promise<string> {
  const { secret } = await deployFlow(
    stack,
    flow(tenant.company, name, { activity: `collect.${name}`, ...webhook }, steps),
  );
  return secret;
}

const call = (name: string, secret: string, payloadText: string, headers?: Record<string, string>) =>
  callWebhook(stack, {
    company: tenant.company,
    activity: `collect.${name}`,
    secret,
    auth: tenant.auth,
    payloadText,
    headers,
  });

const engineMetric = async (labels: Record<string, string>) =>
  sample(
    await scrape(`http://127.0.0.1:${stack.engine.metrics!.port}/metrics`),
    'flowhook_engine_flow_control_calls_total',
    { company: tenant.company, ...labels },
  );

test('10 calls within a debounce period become one execution with the last payload, a count of 10 and every payload text exactly as sent', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy('debounced', { debounce: { key: '${Trigger.Payload.customer}', period: '3s' } }, [
    {
      httpRequest: {
        description: 'report',
        url: `${server.url}/coalesced`,
        method: 'POST',
        body: '${ {"count": Trigger.Coalesced.count, "payloads": Trigger.Coalesced.payloads, "last": Trigger.Payload.n} }',
      },
    },
  ]);
  // Spelled the way a caller might: spaces, key order and a big number kept byte for byte.
  const payloads = Array.from(
    { length: 10 },
    (_, n) => `{ "n": ${n},"customer":"C-1", "amount": 12345678901234567890 }`,
  );
  const answers = [];
  for (const payload of payloads) answers.push(await call('debounced', secret, payload));
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(10).fill(200),
  );
  t.is(new Set(answers.map((answer) => answer.executionId)).size, 1, 'every caller is told the one execution');
  const other = await call('debounced', secret, '{"n": 99, "customer": "C-2"}');
  t.not(other.executionId, answers[0]!.executionId, 'another key: another execution');

  const reports = (await server.waitForAnswered(2, '/coalesced')).map(
    (report) => JSON.parse(report.body) as { count: number; payloads: string[]; last: number },
  );
  const body = reports.find((report) => report.last !== 99)!;
  t.is(body.count, 10);
  t.is(body.last, 9, 'the last call payload');
  t.deepEqual(body.payloads, payloads, 'each payload text in arrival order');
  t.is(reports.find((report) => report.last === 99)?.count, 1);
  const result = await stack.temporal.workflow.getHandle(answers[0]!.executionId!).result();
  t.is(result.outcome, 'INSTANT_RETURN');
  await eventually(() => countExecutions(stack, 'collect.debounced'), {
    until: (count) => count === 2,
    what: 'two executions of the debounced flow (one per key)',
  });
  const description = await stack.temporal.workflow.getHandle(answers[0]!.executionId!).describe();
  t.deepEqual(description.typedSearchAttributes.get(FLOW_KEY), ['C-1']);
  t.is(await engineMetric({ activity: 'collect.debounced', control: 'coalesced' }), 11);
});

/** Sends `send(n)` every 300 ms for `forMs`: never a quiet second, so a 1 s debounce never ends on its own while they last. */
async function restlessCalls<T>(
  forMs: number,
  send: (n: number) => Promise<T>,
): Promise<{ first: number; answers: T[] }> {
  const first = Date.now();
  const answers: T[] = [];
  for (let n = 0; Date.now() - first < forMs; n++) {
    answers.push(await send(n));
    await sleep(300);
  }
  return { first, answers };
}

test('a debounce without maxWait whose callers never pause still runs: ten periods after the first call at the latest', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy('restless', { debounce: { key: '${Trigger.Payload.customer}', period: '1s' } }, [
    {
      httpRequest: {
        description: 'report',
        url: `${server.url}/restless`,
        method: 'POST',
        body: '${ {"count": Trigger.Coalesced.count} }',
      },
    },
  ]);
  const { first, answers } = await restlessCalls(14_000, (n) =>
    call('restless', secret, `{"customer": "C-9", "n": ${n}}`),
  );
  t.true(
    answers.every((answer) => answer.status === 200),
    'every call accepted',
  );
  const ids = answers.map((answer) => answer.executionId!);
  const [bounded, next] = [...new Set(ids)];
  t.truthy(next, 'the calls after the bound join the next window: the first one did not wait for the calls to stop');
  const started = (await stack.temporal.workflow.getHandle(bounded!).describe()).startTime.getTime() - first;
  t.true(
    started >= 9_000 && started < 12_500,
    `the first execution started ${started} ms after the first call (default maxWait 10 s)`,
  );
  const [report] = await server.waitForAnswered(1, '/restless');
  t.is(
    (JSON.parse(report!.body) as { count: number }).count,
    ids.filter((id) => id === bounded).length,
    'it stands for the calls of its window',
  );
});

test('a collector begun before maxWait had a default (no maxWait in its input) takes the default while it runs on', async (t) => {
  const workflowId = `flowhook-debounce:collect.before-default:${randomUUID()}`;
  const input: CollectorInput = {
    policy: { kind: 'debounce', periodMs: 1000 },
    template: {
      company: tenant.company,
      flowName: 'before-default',
      flowVersion: 1,
      steps: [{ log: { message: '${Trigger.Coalesced.count}' } }],
      trigger: {
        activity: 'collect.before-default',
        description: '',
        responseMode: 'INSTANT_RETURN',
        syncTimeoutMs: 30_000,
        defaultResponse: { statusCode: 200, contentType: 'application/json' },
        doNotLogPayload: false,
      },
    },
  };
  const collector = await stack.temporal.workflow.start(COLLECTOR_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: stack.taskQueue,
    args: [input],
  });
  const collected = (n: number): CollectedCall => ({
    callId: randomUUID(),
    keyed: false,
    payloadJson: `{"n":${n}}`,
    caller: 'user:b',
    held: false,
    seed: {
      workflowId: `collect.before-default:${randomUUID()}`,
      executionGrant: '',
      memo: {},
      staticSummary: 'x',
      staticDetails: 'x',
      priority: { fairnessKey: tenant.company },
    },
  });
  const { answers } = await restlessCalls(
    13_000,
    async (n) => (await collector.executeUpdate(collectCallUpdate, { args: [collected(n)] })).executionId,
  );
  const [bounded, next] = [...new Set(answers)];
  t.truthy(next, 'the window ended at the default while the calls went on');
  const result = await stack.temporal.workflow.getHandle<FlowWorkflow>(bounded!).result();
  t.is(Number(result.steps.find((step) => step.type === 'log')?.note), answers.filter((id) => id === bounded).length);
  t.true(
    (await historyText(workflowId)).includes(DEBOUNCE_DEFAULT_MAX_WAIT_PATCH),
    'the change is marked in its history, so a replay takes the same path',
  );
});

test('25 concurrent calls to a batch of maxSize 10 become three executions covering all 25 calls, each once, in arrival order', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy('batched', { batch: { maxSize: 10, maxWait: '20s' } }, [
    {
      httpRequest: {
        description: 'report',
        url: `${server.url}/batch`,
        method: 'POST',
        body: '${ {"calls": Trigger.Batch.payload, "callers": Trigger.Batch.caller, "received": Trigger.Batch.receivedAt} }',
      },
    },
  ]);
  const sent = Array.from({ length: 25 }, (_, n) => `{"n":${n}}`);
  const answers = await Promise.all(sent.map((payload) => call('batched', secret, payload)));
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(25).fill(200),
  );
  t.is(new Set(answers.map((answer) => answer.executionId)).size, 3, 'callers are told three executions');
  // Two full batches at once; the last five after maxWait.
  const reports = (await server.waitForAnswered(3, '/batch', 90_000)).map(
    (report) => JSON.parse(report.body) as { calls: string[]; callers: string[]; received: string[] },
  );
  t.deepEqual(
    reports.map((report) => report.calls.length).sort((a, b) => a - b),
    [5, 10, 10],
  );
  const collected = reports.flatMap((report) => report.calls);
  t.deepEqual([...collected].sort(), [...sent].sort(), 'every call in exactly one batch');
  for (const report of reports) {
    // Concurrent calls have no order of their own: arrival is when each reached the collector.
    t.deepEqual(report.received, [...report.received].sort(), 'a batch lists its calls in arrival order');
    t.true(report.callers.every((caller) => caller === `user:${tenant.userName}`));
  }
  t.is(await countExecutions(stack, 'collect.batched'), 3);
  t.is(await engineMetric({ activity: 'collect.batched', control: 'batched' }), 25);
});

test('a retried keyed call joins its batch once; another payload under its key is refused', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const secret = await deploy('keyed-batch', { batch: { maxSize: 3, maxWait: '30s' } }, [
    {
      httpRequest: {
        description: 'report',
        url: `${server.url}/keyed`,
        method: 'POST',
        body: '${ {"calls": Trigger.Batch.payload} }',
      },
    },
  ]);
  const first = await call('keyed-batch', secret, '{"n":1}', { 'Idempotency-Key': 'k-1' });
  const retry = await call('keyed-batch', secret, '{"n":1}', { 'Idempotency-Key': 'k-1' });
  t.is(retry.status, 200);
  t.is(retry.executionId, first.executionId);
  t.is((await call('keyed-batch', secret, '{"n":2}', { 'Idempotency-Key': 'k-1' })).status, 422);
  await call('keyed-batch', secret, '{"n":3}');
  await call('keyed-batch', secret, '{"n":4}');
  const [report] = await server.waitForAnswered(1, '/keyed');
  t.deepEqual(
    JSON.parse(report!.body).calls,
    ['{"n":1}', '{"n":3}', '{"n":4}'],
    'the retried call is in the batch once',
  );
  const late = await call('keyed-batch', secret, '{"n":1}', { 'Idempotency-Key': 'k-1' });
  t.is(late.executionId, first.executionId, 'also after its batch ran');
});

test('doNotLogPayload: the collector, the concurrency coordinator and the execution keep the payload and the key out of Temporal, and the execution still runs with them', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const key = '${Trigger.Payload.card}';
  const secret = await deploy(
    'hidden',
    { doNotLogPayload: true, debounce: { key, period: '2s' }, concurrency: { key } },
    [
      {
        httpRequest: {
          description: 'report',
          url: `${server.url}/hidden`,
          method: 'POST',
          body: '${ {"card": Trigger.Payload.card, "count": Trigger.Coalesced.count} }',
        },
      },
    ],
  );
  const first = await call('hidden', secret, '{"card": "4111-SECRET-1111", "n": 1}');
  await call('hidden', secret, '{"card": "4111-SECRET-1111", "n": 2}');
  const [report] = await server.waitForAnswered(1, '/hidden');
  t.deepEqual(
    JSON.parse(report!.body),
    { card: '4111-SECRET-1111', count: 2 },
    'the execution decrypts what the collector handed it',
  );
  // Its result is encrypted too: this test's client has no codec, so it asks only whether it completed — and its memo
  // (the grant's run mark) is as readable as any execution's: the engine's grant checks read it.
  const described = await eventually(() => stack.temporal.workflow.getHandle(first.executionId!).describe(), {
    until: (description) => description.status.name === 'COMPLETED',
    what: 'the execution completed',
  });
  t.true(typeof described.memo?.grantRun === 'string');
  const coordinators = async (type: string) => {
    const ids: string[] = [];
    for await (const info of stack.temporal.workflow.list({
      query: `WorkflowType = '${type}' AND TaskQueue = '${stack.taskQueue}'`,
    }))
      ids.push(info.workflowId);
    return ids;
  };
  const collectors = await eventually(() => coordinators(COLLECTOR_WORKFLOW_TYPE), {
    until: (ids) => ids.length > 0,
    what: 'the collector is listed',
  });
  const gates = await eventually(() => coordinators(CONCURRENCY_WORKFLOW_TYPE), {
    until: (ids) => ids.length > 0,
    what: 'the concurrency coordinator is listed',
  });
  for (const workflowId of [first.executionId!, ...collectors, ...gates]) {
    t.false((await historyText(workflowId)).includes('SECRET'), `${workflowId}: no payload or key in clear`);
  }
  const label = (await stack.temporal.workflow.getHandle(first.executionId!).describe()).typedSearchAttributes.get(
    FLOW_KEY,
  );
  t.regex(label?.[0] ?? '', /^#[A-Za-z0-9_-]{16}$/, 'the key is shown as its digest');
});

test('a collector continued as new keeps its open window and the keyed calls it remembers', async (t) => {
  // The state continue-as-new hands on: one open batch window holding one keyed call.
  const executionId = `collect.carried:${randomUUID()}`;
  const seed = {
    workflowId: executionId,
    executionGrant: '',
    memo: {},
    staticSummary: 'carried',
    staticDetails: 'carried',
    priority: { fairnessKey: tenant.company },
  };
  const now = Date.now();
  const input: CollectorInput = {
    policy: { kind: 'batch', maxSize: 2, maxWaitMs: 60_000 },
    template: {
      company: tenant.company,
      flowName: 'carried',
      flowVersion: 1,
      steps: [{ log: { message: '${$count(Trigger.Batch)}: ${$join(Trigger.Batch.payload, " ")}' } }],
      trigger: {
        activity: 'collect.carried',
        description: '',
        responseMode: 'INSTANT_RETURN',
        syncTimeoutMs: 30_000,
        defaultResponse: { statusCode: 200, contentType: 'application/json' },
        doNotLogPayload: false,
      },
    },
    carried: {
      windows: [
        {
          seed,
          openedAt: now,
          lastAt: now,
          count: 1,
          calls: [{ payloadJson: '{"n":1}', caller: 'user:a', receivedAt: new Date(now).toISOString() }],
          bytes: 7,
        },
      ],
      remembered: [['key-1', executionId, now, 'digest-1']],
    },
  };
  const collector = await stack.temporal.workflow.start(COLLECTOR_WORKFLOW_TYPE, {
    workflowId: `flowhook-batch:collect.carried:${randomUUID()}`,
    taskQueue: stack.taskQueue,
    args: [input],
  });
  const collected = (callId: string, payloadJson: string, extra: Partial<CollectedCall> = {}): CollectedCall => ({
    callId,
    keyed: false,
    payloadJson,
    caller: 'user:b',
    held: false,
    seed: { ...seed, workflowId: `collect.carried:${randomUUID()}` },
    ...extra,
  });
  t.deepEqual(
    await collector.executeUpdate(collectCallUpdate, {
      args: [collected('key-1', '{"n":1}', { keyed: true, payloadDigest: 'digest-1' })],
    }),
    {
      executionId,
      repeated: true,
    },
  );
  t.deepEqual(
    await collector.executeUpdate(collectCallUpdate, {
      args: [collected('key-1', '{"n":9}', { keyed: true, payloadDigest: 'digest-9' })],
    }),
    {
      executionId,
      repeated: true,
      reused: true,
    },
  );
  t.deepEqual(await collector.executeUpdate(collectCallUpdate, { args: [collected(randomUUID(), '{"n":2}')] }), {
    executionId,
    repeated: false,
  });
  // The update answers once the call is in the window; the collector starts the execution right after.
  const execution = stack.temporal.workflow.getHandle<FlowWorkflow>(executionId);
  await eventually(
    () =>
      execution.describe().then(
        () => true,
        () => false,
      ),
    { what: 'the batch execution has started' },
  );
  const result = await execution.result();
  t.is(
    result.steps.find((step) => step.type === 'log')?.note,
    '2: {"n":1} {"n":2}',
    'the carried call and the new one, in one batch',
  );
});

test('publishing refuses debounce and batch for Wait for Response step, and key formulas that read what a call cannot know yet', async (t) => {
  const refused = async (webhook: Record<string, unknown>) => {
    const error = await t.throwsAsync(
      deployFlow(
        stack,
        flow(
          tenant.company,
          `refused-${Math.random().toString(36).slice(2, 8)}`,
          { activity: `collect.refused.${Math.random().toString(36).slice(2, 8)}`, ...webhook },
          [],
        ),
      ),
    );
    return ConnectError.from(error).rawMessage;
  };
  t.regex(
    await refused({ responseMode: 'WAIT_FOR_RESPONSE_STEP', debounce: { key: '${Trigger.Payload.id}', period: '5s' } }),
    /trigger\.webhook\.debounce: only with responseMode INSTANT_RETURN/,
  );
  t.regex(
    await refused({ responseMode: 'WAIT_FOR_RESPONSE_STEP', batch: { maxSize: 5, maxWait: '5s' } }),
    /trigger\.webhook\.batch: only with responseMode INSTANT_RETURN/,
  );
  t.regex(
    await refused({ concurrency: { key: '${Variables.customer}' } }),
    /trigger\.webhook\.concurrency\.key: .*"Variables" cannot be read here/,
  );
});
