// Flow control under the bursts real senders make, against the stack as
// separate processes (bin/flowhook engine, worker, facade) on the dev server:
// thousands of calls on one concurrency key, thousands held by a paused flow,
// debounce and batch windows fed payloads that are large once serialised.
// Nothing accepted is lost, the worker never falls over, and one key's backlog
// does not hold up another key. (A kill -9 during a backlog:
// flow-control-crash.test.ts; what a dead workflow thread does to readiness:
// worker-thread-death.test.ts.)
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import type { AdminClient } from '../../bin/cli/admin-client.ts';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { GateState } from '../../flow/flow-control-contract.ts';
import { gateStateQuery } from '../../flow/flow-control-messages.ts';
import { eventually } from '../support/eventually.ts';
import { startIntervalServer } from '../support/interval-server.ts';
import { stackTenant, startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { testInfrastructure } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';

const COMPANY = 'Burst Ltd.';
let stack: ProcessStack;
let admin: AdminClient;
let auth: string;
let temporal: Client;

test.before(async () => {
  // info, not debug: thousands of calls.
  stack = await startProcessStack({ env: { FLOWHOOK_LOG_LEVEL: 'info' } });
  temporal = new Client({ connection: await Connection.connect({ address: testInfrastructure().temporalAddress }) });
  ({ admin, auth } = await stackTenant(stack, COMPANY, 'burst-caller'));
});
test.after.always(async () => {
  await stack?.stop();
  await temporal?.connection.close();
});

type Caller = (payload: string) => Promise<{ status: number; executionId: string; text: string }>;

async function deploy(name: string, webhook: Record<string, unknown>, steps: unknown[]): Promise<Caller> {
  const { secret } = await admin.applyFlow({
    flow: fromJson(FlowSchema, flow(COMPANY, name, { activity: `burst.${name}`, ...webhook }, steps) as never),
    publish: true,
  });
  return async (payload) => {
    const response = await fetch(
      `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: `{"activity": "burst.${name}", "secret": ${JSON.stringify(secret)}, "payload": ${payload}}`,
      },
    );
    return {
      status: response.status,
      executionId: response.headers.get('x-flowhook-execution-id') ?? '',
      text: await response.text(),
    };
  };
}

/** `count` calls, `concurrency` at a time; the statuses seen, by count. */
async function sendAll(
  call: Caller,
  count: number,
  concurrency: number,
  payload: (n: number) => string,
): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const { status } = await call(payload(next++));
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

const executionsWhere = (clauses: string) =>
  `WorkflowType = "flowWorkflow" AND TaskQueue = "${stack.env.FLOWHOOK_TASK_QUEUE}" AND ${clauses}`;
const completed = async (clauses: string) =>
  (await temporal.workflow.count(executionsWhere(`${clauses} AND ExecutionStatus = "Completed"`))).count;

const NOTE = [{ set: { description: 'Note the call', variables: { n: '${Trigger.Payload.n}' } } }];

test.serial(
  "5,000 calls on one concurrency key all run, with no worker restart, while another key's calls never wait behind that backlog",
  async (t) => {
    t.timeout(20 * 60_000);
    const call = await deploy('hot', { concurrency: { key: '${Trigger.Payload.account}', limit: 1 } }, NOTE);
    const worker = stack.pid('worker');
    // Another key's call every three seconds while the burst is sent and drains: how many of the hot
    // key's executions waited when it was sent, and how many of them completed before it did. Starved
    // behind the backlog, it would wait for all of them; served beside it, for a few (as many as drain in
    // the time its own execution takes). Counted, not timed: how long it waits is the benchmark's (J).
    const others: { waiting: number; completedMeanwhile: number; ms: number }[] = [];
    let bursting = true;
    const running = async () =>
      (await temporal.workflow.count(executionsWhere('FlowKey = "hot" AND ExecutionStatus = "Running"'))).count;
    const otherCalls = (async () => {
      for (let n = 0; bursting; n++) {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        const [waiting, before] = [await running(), await completed('FlowKey = "hot"')];
        const sent = Date.now();
        const { status, executionId } = await call(`{"account": "other-${n}", "n": ${n}}`);
        if (status !== 200) throw new Error(`another key's call was answered ${status}`);
        await temporal.workflow.getHandle(executionId).result();
        const ms = Date.now() - sent;
        others.push({ waiting, completedMeanwhile: (await completed('FlowKey = "hot"')) - before, ms });
      }
    })();
    try {
      const statuses = await sendAll(call, 5000, 16, (n) => `{"account": "hot", "n": ${n}}`);
      t.deepEqual(statuses, { 200: 5000 }, 'every call is accepted');
      await eventually(() => completed('FlowKey = "hot"'), {
        until: (done) => done === 5000,
        timeoutMs: 15 * 60_000,
        intervalMs: 2000,
        what: "the hot key's 5,000 executions completed",
      });
    } finally {
      bursting = false;
      await otherCalls;
    }
    const behindBacklog = others.filter((other) => other.waiting >= 1000);
    const seen = others
      .map((other) => `${other.waiting} waiting, ${other.completedMeanwhile} done meanwhile, ${other.ms} ms`)
      .join('; ');
    t.true(behindBacklog.length >= 3, `calls for other keys while ≥ 1,000 of the hot key's waited: ${seen}`);
    for (const other of behindBacklog)
      t.true(other.completedMeanwhile < other.waiting / 2, `another key waited behind the hot key's backlog: ${seen}`);
    t.is(stack.exit('worker'), undefined, 'the worker still runs');
    t.is(stack.pid('worker'), worker, 'the same worker: no restart');
    t.notRegex(stack.output(), /the worker failed|ERR_WORKER_OUT_OF_MEMORY/);
  },
);

test.serial(
  '3,000 calls to a paused flow are held by its gate and all run after resume, each key one at a time',
  async (t) => {
    t.timeout(15 * 60_000);
    const call = await deploy('held', { concurrency: { key: '${Trigger.Payload.k}', limit: 1 } }, NOTE);
    await admin.pauseFlow({ company: COMPANY, name: 'held' });
    const statuses = await sendAll(call, 3000, 16, (n) => `{"k": "K-${n % 20}", "n": ${n}}`);
    t.deepEqual(statuses, { 200: 3000 });
    const gate = await eventually(() => gateState('flowPauseGateWorkflow', 'held'), {
      until: (state) => state?.waiting === 3000,
      what: 'the pause gate holds the 3,000',
    });
    t.true(gate!.pages > 0, 'more than a gate keeps in its own state: the rest waits in pages');
    t.is(await completed('FlowActivity = "burst.held"'), 0, 'nothing ran while the flow was paused');
    await admin.resumeFlow({ company: COMPANY, name: 'held' });
    await eventually(() => completed('FlowActivity = "burst.held"'), {
      until: (done) => done === 3000,
      timeoutMs: 10 * 60_000,
      intervalMs: 2000,
      what: 'the 3,000 held executions completed',
    });
  },
);

test.serial(
  'debounce and batch windows fed quote-heavy payloads run every call or refuse it with 413, and never drop one',
  async (t) => {
    t.timeout(5 * 60_000);
    const server = await startIntervalServer({ holdMs: 0 });
    t.teardown(() => server.close());
    const report = (path: string, body: string) => [
      { httpRequest: { description: 'Report the window', method: 'POST', url: `${server.url}${path}`, body } },
    ];
    // 9,000 escaped quotes: 18 KB sent, 36 KB as a JSON string; 60 of them are past the window cap.
    const quoteHeavy = (n: number) => `{"k": "q", "n": ${n}, "text": "${'\\"'.repeat(9000)}"}`;

    const coalesce = await deploy(
      'coalesced',
      { debounce: { key: '${Trigger.Payload.k}', period: '3s' } },
      report('/debounce', '{"count": ${Trigger.Coalesced.count}, "kept": ${$count(Trigger.Coalesced.payloads)}}'),
    );
    t.deepEqual(await sendAll(coalesce, 60, 4, quoteHeavy), { 200: 60 });
    const [debounced] = await server.waitForAnswered(1, '/debounce');
    const { count, kept } = JSON.parse(debounced!.body) as { count: number; kept: number };
    t.is(count, 60, 'the execution stands for every call');
    t.true(kept > 0 && kept < 60, `it keeps the latest ${kept} payloads that fit`);

    const batch = await deploy(
      'batched',
      { batch: { maxSize: 100, maxWait: '3s' } },
      report('/batch', '{"size": ${$count(Trigger.Batch)}}'),
    );
    t.deepEqual(await sendAll(batch, 100, 4, quoteHeavy), { 200: 100 });
    const batches = await eventually(() => server.intervals.filter((interval) => interval.path === '/batch'), {
      until: (runs) => runs.reduce((sum, run) => sum + (JSON.parse(run.body) as { size: number }).size, 0) === 100,
      what: 'batches covering the 100 calls',
    });
    t.true(batches.length >= 2, `${batches.length} batches: each closed before its input passed the cap`);

    // 400,000 escaped quotes: 800 KB sent (under the 1 MiB body limit), 1.6 MB as a JSON string, and twice in the window's input.
    const tooLarge = await batch(`{"text": "${'\\"'.repeat(400_000)}"}`);
    t.is(tooLarge.status, 413);
    t.regex(tooLarge.text, /too large for this flow's batch window/);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    t.is(
      server.intervals.filter((interval) => interval.path === '/batch').length,
      batches.length,
      'nothing of it was collected',
    );
  },
);

test.serial(
  'a payload-derived key joins a redelivery with another body, and the engine says so in its log',
  async (t) => {
    const call = await deploy('keyed', { idempotencyKey: '${Trigger.Payload.event.id}' }, NOTE);
    const first = await call('{"event": {"id": "evt_1"}, "attempt": 1, "n": 1}');
    const again = await call('{"event": {"id": "evt_1"}, "attempt": 2, "n": 1}');
    t.is(again.status, 200);
    t.is(again.executionId, first.executionId);
    const line = await eventually(
      () =>
        stack
          .output()
          .split('\n')
          .find((text) => text.includes('"bodyDiffers":true') && text.includes(first.executionId)),
      {
        what: "the engine's line for the joined call",
      },
    );
    t.regex(line!, /"joined":true/);
    t.notRegex(line!, /attempt/, 'never the body');
  },
);

/**
 * What a flow's running gate of this type holds (its flowhookGateState query), found by its summary —
 * or, for a gate that continued as new (Temporal keeps no summary across that), as the one gate of
 * that type on the stack's task queue that has none.
 */
async function gateState(type: string, flowName: string): Promise<GateState | undefined> {
  for await (const info of temporal.workflow.list({
    query: `WorkflowType = "${type}" AND TaskQueue = "${stack.env.FLOWHOOK_TASK_QUEUE}" AND ExecutionStatus = "Running"`,
  })) {
    const handle = temporal.workflow.getHandle(info.workflowId);
    const summary = await (await handle.describe()).staticSummary();
    if (summary === undefined || summary.endsWith(` · ${flowName}`)) return handle.query(gateStateQuery);
  }
  return undefined;
}
