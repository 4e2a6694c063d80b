// Production scale: two facades, two engines and two workers as separate
// processes on one database, one Temporal and one task queue. Callers load
// both facades, each call with its own Idempotency-Key; mid-load one engine
// and one worker are killed with kill -9 and started again. A caller refused
// (503, a dropped connection) tries the other facade with the same key, as a
// client with a list of endpoints would. Afterwards: every key names exactly
// one execution — through either facade, so through either engine — no two
// keys share one, every execution completes, and each of its two outbound
// calls reached the target under one Idempotency-Key (a worker killed mid-call
// sends it again with the same key, which an idempotent receiver applies once).
// The flow has a concurrency key (one of GROUPS values, from the payload): the
// executions of one group never run at the same time, across both workers and
// the kill, as the target sees their calls.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { eventually } from '../support/eventually.ts';
import { startMultiNodeStack, type MultiNodeStack, type NodeName } from '../support/multi-node-stack.ts';
import { testInfrastructure } from '../support/stack.ts';
import { startTargetServer, type ReceivedRequest, type TargetServer } from '../support/target-server.ts';
import { flow } from '../support/webhook-helpers.ts';

const COMPANY = 'Scale Co';
const ACTIVITY = 'scale.instant';
const NODES: readonly NodeName[] = ['a', 'b'];
const CALLERS_PER_FACADE = 8;
// About 16 calls a second for 25 s: ~400 executions, with the crash well inside the load.
const LOAD_MS = 25_000;
const PAUSE_BETWEEN_CALLS_MS = 1000;
const CRASH_AFTER_MS = 7000;
const DOWN_FOR_MS = 5000;
/** How long one caller keeps trying a key (both facades, in turn) before it gives up. */
const CALLER_PATIENCE_MS = 120_000;
const STEPS = ['first', 'second'] as const;
/** Concurrency keys: enough that ~16 calls a second of 3 s executions drain while the load runs. */
const GROUPS = 40;
/** The target answers each call after this long: an execution's second call is answered that long after it arrived. */
const TARGET_DELAY_MS = 1000;

interface Attempt {
  facade: NodeName;
  status: number | 'network-error';
  executionId: string | null;
  body: string;
}

/** One key as its caller saw it: every attempt, and the execution the 200 named (null if none did). */
interface KeyedCall {
  key: string;
  attempts: Attempt[];
  executionId: string | null;
}

interface Callers {
  /** One POST to a facade, with the key as Idempotency-Key and in the payload. */
  invoke(facade: NodeName, key: string): Promise<Attempt>;
}

const other = (node: NodeName): NodeName => (node === 'a' ? 'b' : 'a');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Refused in a way a retry may fix: the engine or facade behind the call was not there. */
const refused = (attempt: Attempt) => attempt.status === 'network-error' || attempt.status >= 500;

/** The company, a Basic user and the published flow, made through engine a's admin service. */
async function setUpCallers(stack: MultiNodeStack, target: TargetServer): Promise<Callers> {
  const admin = createAdminClient({ engineUrl: stack.nodes.a.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN! });
  await admin.createCompany({ name: COMPANY });
  const { accessKey } = await admin.createUser({ name: 'scale-user', company: COMPANY });
  // timeout 5 s: a step cut off by the worker's death is tried again 15 s after it started
  // (2 × timeout + 5 s), not after the default 65 s. maxAttempts 10: while engine a is down its
  // worker cannot ask for the egress list, and those attempts must not use up the step.
  const call = (step: string) => ({
    description: `${step} call`,
    method: 'POST',
    url: `${target.url}/${step}/{{Execution.Id}}`,
    timeout: '5s',
    maxAttempts: 10,
  });
  const definition = flow(
    COMPANY,
    'scale',
    { activity: ACTIVITY, concurrency: { key: '${Trigger.Payload.group}', limit: 1 } },
    [
      { httpRequest: call('first') },
      { sleep: { description: 'in flight when processes die', duration: '1s' } },
      { httpRequest: call('second') },
    ],
  );
  const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
  const auth = `Basic ${Buffer.from(`scale-user:${accessKey}`).toString('base64')}`;
  return {
    async invoke(facade, key) {
      try {
        const response = await fetch(
          `${stack.nodes[facade].facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: auth, 'idempotency-key': key },
            // The same text on every try: a key reused with another payload is refused (422).
            body: JSON.stringify({ activity: ACTIVITY, secret, payload: { key, group: groupOf(key) } }),
            signal: AbortSignal.timeout(30_000),
          },
        );
        return {
          facade,
          status: response.status,
          executionId: response.headers.get('x-flowhook-execution-id'),
          body: await response.text(),
        };
      } catch {
        return { facade, status: 'network-error', executionId: null, body: '' };
      }
    },
  };
}

/** The key's concurrency group: the same for every try of a key. */
function groupOf(key: string): string {
  let hash = 0;
  for (const character of key) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return `g${hash % GROUPS}`;
}

/**
 * Executions of one group whose steps overlapped, as the target saw them: each execution from its
 * first call's arrival to its last second call's answer (a call sent again after the kill included).
 */
function overlapsWithinGroups(received: readonly ReceivedRequest[], calls: readonly KeyedCall[]): string[] {
  const byPath = Map.groupBy(received, (request) => request.path);
  const spans = calls.map((call) => {
    const first = byPath.get(`/first/${call.executionId}`) ?? [];
    const second = byPath.get(`/second/${call.executionId}`) ?? [];
    return {
      group: groupOf(call.key),
      id: call.executionId!,
      start: Math.min(...first.map((r) => r.at)),
      end: Math.max(...second.map((r) => r.at)) + TARGET_DELAY_MS,
    };
  });
  const problems: string[] = [];
  for (const group of Map.groupBy(spans, (span) => span.group).values()) {
    const sorted = group.toSorted((a, b) => a.start - b.start);
    sorted.forEach((span, index) => {
      const before = sorted[index - 1];
      if (before && span.start < before.end)
        problems.push(`${span.group}: ${span.id} started ${before.end - span.start} ms before ${before.id} ended`);
    });
  }
  return problems;
}

/** Starts at one facade; a refused try goes to the other at once, later ones after a short pause. */
async function callUntilAnswered(callers: Callers, key: string, first: NodeName): Promise<KeyedCall> {
  const attempts: Attempt[] = [];
  for (let facade = first, deadline = Date.now() + CALLER_PATIENCE_MS; ; facade = other(facade)) {
    const attempt = await callers.invoke(facade, key);
    attempts.push(attempt);
    if (attempt.status === 200) return { key, attempts, executionId: attempt.executionId };
    if (!refused(attempt) || Date.now() > deadline) return { key, attempts, executionId: null };
    if (attempts.length > 1) await sleep(250); // the caller's own back-off, as a client's would be
  }
}

/** CALLERS_PER_FACADE callers on each facade, each making one call after the other until `ms` have passed. */
async function driveLoad(callers: Callers, run: string, ms: number): Promise<KeyedCall[]> {
  const calls: KeyedCall[] = [];
  const end = Date.now() + ms;
  const caller = async (facade: NodeName, index: number) => {
    for (let n = 0; Date.now() < end; n++) {
      calls.push(await callUntilAnswered(callers, `${run}-${facade}${index}-${n}`, facade));
      await sleep(PAUSE_BETWEEN_CALLS_MS);
    }
  };
  await Promise.all(
    NODES.flatMap((facade) => Array.from({ length: CALLERS_PER_FACADE }, (_, index) => caller(facade, index))),
  );
  return calls;
}

/** The execution one facade names for a key, asked until it answers 200 (it may still be reconnecting to its engine). */
async function executionNamedBy(callers: Callers, facade: NodeName, key: string): Promise<string | null> {
  const attempt = await eventually(() => callers.invoke(facade, key), {
    until: (answer) => !refused(answer),
    timeoutMs: 60_000,
    intervalMs: 500,
    what: `facade ${facade} answering for ${key}`,
    show: (answer) => `${answer.status} ${answer.body}`,
  });
  return attempt.status === 200 ? attempt.executionId : `${attempt.status} ${attempt.body}`;
}

/** `work` for every item, at most `limit` at a time; results in the items' order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Workflow ids on the task queue once visibility (eventually consistent) lists at least `atLeast`. */
async function executionsOnQueue(temporal: Client, taskQueue: string, atLeast: number): Promise<string[]> {
  const listed = async () => {
    const ids: string[] = [];
    // Flow executions only: the concurrency keys' coordinators run on the same task queue.
    for await (const execution of temporal.workflow.list({
      query: `WorkflowType = "flowWorkflow" AND TaskQueue = "${taskQueue}"`,
    }))
      ids.push(execution.workflowId);
    return ids;
  };
  return eventually(listed, {
    until: (ids) => ids.length >= atLeast,
    timeoutMs: 60_000,
    intervalMs: 500,
    what: `${atLeast} executions listed`,
    show: (ids) => `${ids.length}`,
  });
}

/** The flow's result outcome, or why there is none. */
async function outcomeOf(temporal: Client, executionId: string): Promise<string> {
  try {
    return (await temporal.workflow.getHandle(executionId).result()).outcome;
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function tally(labels: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const label of labels) counts[label] = (counts[label] ?? 0) + 1;
  return counts;
}

/** Per execution and step: the requests the target got, and how many distinct Idempotency-Keys they carried. */
function sideEffects(received: readonly ReceivedRequest[], executionIds: readonly string[]) {
  const byPath = Map.groupBy(received, (request) => request.path);
  const problems: string[] = [];
  let duplicates = 0;
  for (const executionId of executionIds) {
    for (const step of STEPS) {
      const requests = byPath.get(`/${step}/${executionId}`) ?? [];
      const keys = new Set(requests.map((request) => request.headers['idempotency-key']));
      if (requests.length === 0) problems.push(`${executionId}: no ${step} call arrived`);
      else if (keys.size !== 1 || keys.has(undefined))
        problems.push(`${executionId}: ${step} call under keys ${JSON.stringify([...keys])}`);
      duplicates += Math.max(0, requests.length - 1);
    }
  }
  const known = new Set(executionIds);
  const strays = received.map((request) => request.path).filter((path) => !known.has(path.split('/')[2] ?? ''));
  return { problems, duplicates, strays };
}

test('two facades, engines and workers on one database and task queue: kill -9 of an engine and a worker under load; every key names one execution, which completes with each side effect under one key, one execution per concurrency key at a time', async (t) => {
  t.timeout(10 * 60_000);
  const started = Date.now();
  const phases: Record<string, number> = {};
  const phase = (name: string, since: number) => (phases[name] = Math.round((Date.now() - since) / 1000));
  // Answered after 1 s: the worker that is killed is waiting on some of its calls, which are
  // then sent again by the other worker (with the same Idempotency-Key).
  const target = await startTargetServer(() => ({ delayMs: TARGET_DELAY_MS }));
  const connection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  const temporal = new Client({ connection });
  let stack: MultiNodeStack | undefined;
  let threw = false;
  try {
    stack = await startMultiNodeStack();
    const callers = await setUpCallers(stack, target);
    phase('setup', started);

    const loadStarted = Date.now();
    const load = driveLoad(callers, `run${loadStarted}`, LOAD_MS);
    // The scenario's clock: the kill lands well inside the load, and the processes stay down a while.
    await sleep(CRASH_AFTER_MS);
    // Engine a and worker b: facade a loses its engine (its callers turn to facade b), and the
    // surviving worker a loses its engine too, so until the restart every step waits on retries.
    await Promise.all([stack.crash('engine-a'), stack.crash('worker-b')]);
    await sleep(DOWN_FOR_MS);
    await Promise.all([stack.launch('engine-a'), stack.launch('worker-b')]);
    const calls = await load;
    phase('load', loadStarted);

    const firstAttempts = calls.map((call) => call.attempts[0]!);
    const refusedFirst = firstAttempts.filter(refused);
    t.log(
      `${calls.length} keys; first tries refused: ${JSON.stringify(tally(refusedFirst.map((a) => `facade ${a.facade}: ${a.status}`)))}; tries in all: ${calls.reduce((sum, call) => sum + call.attempts.length, 0)}`,
    );
    t.true(refusedFirst.length > 0, 'the crash refused calls in flight or arriving');
    for (const node of NODES)
      t.true(
        firstAttempts.some((a) => a.facade === node && a.status === 200),
        `facade ${node} answered calls`,
      );
    // A refusal is a 503 in the OData error shape or a dropped connection; never the 500 that means the flow failed.
    const oddRefusals = calls
      .flatMap((call) => call.attempts)
      .filter(
        (a) =>
          refused(a) &&
          a.status !== 'network-error' &&
          (a.status !== 503 || !/"code":"ServiceUnavailable"/.test(a.body)),
      );
    t.deepEqual(oddRefusals, [], 'refusals are 503 ServiceUnavailable');

    t.deepEqual(
      calls.filter((call) => !call.executionId),
      [],
      'every key ends with a 200 naming an execution',
    );
    const twoNames = calls.filter(
      (call) => new Set(call.attempts.filter((a) => a.status === 200).map((a) => a.executionId)).size > 1,
    );
    t.deepEqual(twoNames, [], 'every 200 for a key names the same execution');
    const executionIds = calls.map((call) => call.executionId!);
    t.is(new Set(executionIds).size, calls.length, 'no two keys share an execution');

    // Every key once more through each facade (each its own engine): the same execution, nothing new started.
    const reconcileStarted = Date.now();
    const named = await mapLimit(calls, 8, async (call) => ({
      key: call.key,
      a: await executionNamedBy(callers, 'a', call.key),
      b: await executionNamedBy(callers, 'b', call.key),
      first: call.executionId,
    }));
    t.deepEqual(
      named.filter((n) => n.a !== n.first || n.b !== n.first),
      [],
      'both facades name the first execution of every key',
    );
    phase('reconcile', reconcileStarted);

    const completionStarted = Date.now();
    const outcomes = await mapLimit(executionIds, 16, (id) => outcomeOf(temporal, id));
    t.deepEqual(
      outcomes.map((outcome, i) => [executionIds[i], outcome]).filter(([, outcome]) => outcome !== 'INSTANT_RETURN'),
      [],
      'every execution completes',
    );
    const listed = await executionsOnQueue(temporal, stack.env.FLOWHOOK_TASK_QUEUE!, executionIds.length);
    t.is(listed.length, executionIds.length, 'one execution per key on the task queue, and no other run');
    t.deepEqual(listed.toSorted(), executionIds.toSorted(), 'the executions listed are those the keys name');
    phase('completion', completionStarted);

    const { problems, duplicates, strays } = sideEffects(target.received, executionIds);
    t.deepEqual(problems, [], 'each step of each execution reached the target under one Idempotency-Key');
    t.deepEqual(strays, [], 'no side effect from an execution no key names');
    t.deepEqual(
      overlapsWithinGroups(target.received, calls),
      [],
      'the executions of one concurrency key never ran at the same time',
    );
    t.log(
      `target: ${target.received.length} requests for ${executionIds.length * STEPS.length} steps; ${duplicates} sent again with the same key`,
    );
    t.log(`phases (s): ${JSON.stringify({ ...phases, total: Math.round((Date.now() - started) / 1000) })}`);
  } catch (error) {
    threw = true;
    throw error;
  } finally {
    // The processes' own words, when something went wrong.
    if ((threw || !t.passed) && stack) t.log(stack.output().slice(-30_000));
    await stack?.stop();
    await connection.close();
    await target.close();
  }
});
