// Every flow control across a kill -9 of the worker, on the dev server: the
// stack runs as separate processes; calls are accepted, the worker is killed
// while executions wait at a gate or calls wait in a collector, and a new
// worker starts. Nothing accepted is lost and nothing runs twice: each
// execution's step reaches the local server under one Idempotency-Key (a step
// cut off by the kill is sent again with the same key, as worker-crash shows).
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import type { AdminClient } from '../../bin/cli/admin-client.ts';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { stackTenant, startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { overlapping, startIntervalServer, type Interval, type IntervalServer } from '../support/interval-server.ts';
import { eventually } from '../support/eventually.ts';
import { flow } from '../support/webhook-helpers.ts';
import { testInfrastructure } from '../support/stack.ts';
import { Client, Connection } from '@temporalio/client';
import { gateStateQuery } from '../../flow/flow-control-messages.ts';

const COMPANY = 'Crash Control';
let stack: ProcessStack;
let admin: AdminClient;
let auth: string;
let temporal: Client;

test.before(async () => {
  stack = await startProcessStack();
  temporal = new Client({ connection: await Connection.connect({ address: testInfrastructure().temporalAddress }) });
  ({ admin, auth } = await stackTenant(stack, COMPANY, 'crash-caller'));
});
test.after.always(async () => {
  await stack?.stop();
  await temporal?.connection.close();
});

/** A flow whose one step posts to the server under its execution id. */
async function deploy(
  name: string,
  webhook: Record<string, unknown>,
  server: IntervalServer,
  body = '${Trigger.PayloadJson}',
): Promise<(payload: string) => Promise<{ status: number; executionId: string }>> {
  const step = {
    httpRequest: {
      description: 'report',
      url: `${server.url}/${name}/{{Execution.Id}}`,
      method: 'POST',
      body,
      timeout: '2s',
    },
  };
  const { secret } = await admin.applyFlow({
    flow: fromJson(FlowSchema, flow(COMPANY, name, { activity: `crash.${name}`, ...webhook }, [step]) as never),
    publish: true,
  });
  return async (payload) => {
    const response = await fetch(
      `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: `{"activity": "crash.${name}", "secret": ${JSON.stringify(secret)}, "payload": ${payload}}`,
      },
    );
    await response.text();
    return { status: response.status, executionId: response.headers.get('x-flowhook-execution-id') ?? '' };
  };
}

async function killWorkerAndRestart(): Promise<void> {
  await stack.crash('worker');
  stack.launch('worker');
}

/** The requests per execution; each execution's requests (a retry after the kill included) carry one Idempotency-Key. */
function byExecution(
  t: { is(a: unknown, b: unknown, message?: string): void },
  intervals: readonly Interval[],
): Map<string, Interval[]> {
  const runs = new Map<string, Interval[]>();
  for (const interval of intervals) runs.set(interval.path, [...(runs.get(interval.path) ?? []), interval]);
  for (const [path, requests] of runs)
    t.is(new Set(requests.map((request) => request.headers['idempotency-key'])).size, 1, `${path}: one step, one key`);
  return runs;
}

test.serial(
  'concurrency: executions waiting for a key across a kill -9 of the worker still run one at a time, each once',
  async (t) => {
    const server = await startIntervalServer({ holdMs: 100, holdFirst: true });
    t.teardown(() => server.close());
    const call = await deploy('concurrency', { concurrency: { key: '${Trigger.Payload.invoice}', limit: 1 } }, server);
    const answers = [];
    for (let n = 0; n < 5; n++) answers.push(await call(`{"invoice": "INV-7", "n": ${n}}`));
    t.deepEqual(
      answers.map((answer) => answer.status),
      Array(5).fill(200),
    );
    await eventually(() => server.intervals.length >= 1, { what: 'the first execution holds the key' });
    await stack.crash('worker');
    server.releaseFirst();
    stack.launch('worker');
    await eventually(() => new Set(server.intervals.filter((i) => i.end !== undefined).map((i) => i.path)).size, {
      until: (runs) => runs === 5,
      timeoutMs: 120_000,
      what: 'all five executions ran',
    });
    const runs = byExecution(t, server.intervals);
    t.deepEqual(
      [...runs.keys()].sort(),
      answers.map((answer) => `/concurrency/${answer.executionId}`).sort(),
      'every accepted call ran',
    );
    // Each execution from its first request to its last answer: never two at once.
    t.false(
      overlapping(
        [...runs.values()].map((requests) => ({
          ...requests[0]!,
          start: requests[0]!.start,
          end: Math.max(...requests.map((r) => r.end ?? Infinity)),
        })),
      ),
    );
  },
);

test.serial(
  'concurrency: a backlog of 300 on one key across a kill -9 of the worker mid-drain loses nothing, runs nothing twice and never two at once',
  async (t) => {
    t.timeout(10 * 60_000);
    const server = await startIntervalServer({ holdMs: 0 });
    t.teardown(() => server.close());
    const call = await deploy('backlog', { concurrency: { key: '${Trigger.Payload.invoice}', limit: 1 } }, server);
    const answers: { status: number; executionId: string }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 300) answers.push(await call(`{"invoice": "INV-BACKLOG", "n": ${next++}}`));
      }),
    );
    t.deepEqual(
      answers.map((answer) => answer.status),
      Array(300).fill(200),
    );
    // Mid-drain: some ran, most still wait (at the gate, or in its pages).
    await eventually(() => server.intervals.length, {
      until: (ran) => ran >= 50,
      timeoutMs: 120_000,
      what: '50 of the backlog ran',
    });
    await stack.crash('worker');
    const ranBeforeTheKill = new Set(server.intervals.map((interval) => interval.path)).size;
    stack.launch('worker');
    await eventually(() => new Set(server.intervals.filter((i) => i.end !== undefined).map((i) => i.path)).size, {
      until: (runs) => runs === 300,
      timeoutMs: 8 * 60_000,
      what: 'all 300 executions ran',
    });
    t.true(ranBeforeTheKill < 300, `${ranBeforeTheKill} ran before the kill`);
    const runs = byExecution(t, server.intervals);
    t.deepEqual(
      [...runs.keys()].sort(),
      answers.map((answer) => `/backlog/${answer.executionId}`).sort(),
      'every accepted call ran, each once',
    );
    t.false(
      overlapping(
        [...runs.values()].map((requests) => ({
          ...requests[0]!,
          start: requests[0]!.start,
          end: Math.max(...requests.map((r) => r.end ?? Infinity)),
        })),
      ),
    );
  },
);

test.serial(
  'throttle: executions waiting for their start across a kill -9 of the worker all run once, at the rate',
  async (t) => {
    const server = await startIntervalServer({ holdMs: 0 });
    t.teardown(() => server.close());
    const call = await deploy('throttle', { throttle: { perSecond: 1, burst: 1 } }, server);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, n) => call(`{"n": ${n}}`)));
    t.deepEqual(
      answers.map((answer) => answer.status),
      Array(5).fill(200),
    );
    await eventually(() => server.intervals.length >= 2, { what: 'two executions started' });
    await killWorkerAndRestart();
    await eventually(() => new Set(server.intervals.map((i) => i.path)).size, {
      until: (runs) => runs === 5,
      timeoutMs: 120_000,
      what: 'all five executions ran',
    });
    const runs = byExecution(t, server.intervals);
    const starts = [...runs.values()].map((requests) => requests[0]!.start).sort((a, b) => a - b);
    // 1/s: the 5th start is granted 4 s after the first; 1 s tolerance for the first request's own delay.
    t.true(starts.at(-1)! - starts[0]! >= 3000, `spread ${starts.at(-1)! - starts[0]!} ms`);
  },
);

test.serial(
  'debounce: calls coalescing across a kill -9 of the worker become one execution with all of them',
  async (t) => {
    const server = await startIntervalServer({ holdMs: 0 });
    t.teardown(() => server.close());
    const call = await deploy(
      'debounce',
      { debounce: { key: '${Trigger.Payload.customer}', period: '4s' } },
      server,
      '${ {"count": Trigger.Coalesced.count, "last": Trigger.Payload.n} }',
    );
    const answers = [];
    for (let n = 0; n < 10; n++) answers.push(await call(`{"customer": "C-9", "n": ${n}}`));
    t.is(new Set(answers.map((answer) => answer.executionId)).size, 1);
    await killWorkerAndRestart();
    const [report] = await server.waitForAnswered(1, '/debounce', 120_000);
    t.deepEqual(JSON.parse(report!.body), { count: 10, last: 9 });
    t.is(report!.path, `/debounce/${answers[0]!.executionId}`);
    t.is(byExecution(t, server.intervals).size, 1, 'one execution');
  },
);

test.serial(
  'batch: calls collected across a kill -9 of the worker become three executions covering all 25',
  async (t) => {
    const server = await startIntervalServer({ holdMs: 0 });
    t.teardown(() => server.close());
    const call = await deploy(
      'batch',
      { batch: { maxSize: 10, maxWait: '10s' } },
      server,
      '${ {"calls": Trigger.Batch.payload} }',
    );
    const sent = Array.from({ length: 25 }, (_, n) => `{"n":${n}}`);
    const answers = await Promise.all(sent.map((payload) => call(payload)));
    t.deepEqual(
      answers.map((answer) => answer.status),
      Array(25).fill(200),
    );
    await killWorkerAndRestart();
    await eventually(() => new Set(server.intervals.map((i) => i.path)).size, {
      until: (runs) => runs === 3,
      timeoutMs: 120_000,
      what: 'three batches ran',
    });
    const runs = byExecution(t, server.intervals);
    const collected = [...runs.values()].flatMap((requests) => JSON.parse(requests[0]!.body).calls as string[]);
    t.deepEqual(collected.sort(), [...sent].sort(), 'each call in exactly one batch');
  },
);

test.serial(
  'idempotencyKey: a repeat while the worker is down joins the first execution, which runs once',
  async (t) => {
    const server = await startIntervalServer({ holdMs: 0 });
    t.teardown(() => server.close());
    const call = await deploy('keyed', { idempotencyKey: '${Trigger.Payload.event}' }, server);
    await stack.crash('worker');
    const first = await call('{"event": "evt_9"}');
    const repeat = await call('{"event": "evt_9"}');
    t.is(first.status, 200);
    t.is(repeat.executionId, first.executionId);
    stack.launch('worker');
    await server.waitForAnswered(1, '/keyed', 120_000);
    t.is((await call('{"event": "evt_9"}')).executionId, first.executionId);
    t.deepEqual([...byExecution(t, server.intervals).keys()], [`/keyed/${first.executionId}`]);
  },
);

test.serial('pause: executions held across a kill -9 of the worker run once each after resume', async (t) => {
  const server = await startIntervalServer({ holdMs: 0 });
  t.teardown(() => server.close());
  const call = await deploy('pause', {}, server);
  await admin.pauseFlow({ company: COMPANY, name: 'pause' });
  const answers = [];
  for (let n = 0; n < 3; n++) answers.push(await call(`{"n": ${n}}`));
  t.deepEqual(
    answers.map((answer) => answer.status),
    Array(3).fill(200),
  );
  // Held before the kill: the flow's pause gate has the three (its flowhookGateState query), not merely not started yet.
  await eventually(() => pauseGateHolds(), {
    until: (held) => held.length === 3,
    what: 'the pause gate holds the three executions',
  });
  await stack.crash('worker');
  await admin.resumeFlow({ company: COMPANY, name: 'pause' });
  t.is(server.intervals.length, 0, 'nothing ran before resume');
  stack.launch('worker');
  await eventually(() => new Set(server.intervals.map((i) => i.path)).size, {
    until: (runs) => runs === 3,
    timeoutMs: 120_000,
    what: 'the three held executions ran',
  });
  t.deepEqual(
    [...byExecution(t, server.intervals).keys()].sort(),
    answers.map((answer) => `/pause/${answer.executionId}`).sort(),
  );
});

/** The executions the running pause gate of flow `pause` holds, in order. */
async function pauseGateHolds(): Promise<string[]> {
  const query = `WorkflowType = "flowPauseGateWorkflow" AND TaskQueue = "${stack.env.FLOWHOOK_TASK_QUEUE}" AND ExecutionStatus = "Running"`;
  for await (const info of temporal.workflow.list({ query })) {
    const handle = temporal.workflow.getHandle(info.workflowId);
    if (!(await (await handle.describe()).staticSummary())?.endsWith(' · pause')) continue;
    return (await handle.query(gateStateQuery)).first.map((entry) => entry.executionId);
  }
  return [];
}
