// How long callback_wait rows live, on a real stack: the purge (engine/domain/callbacks/
// callback-wait-purge.ts) deletes rows that can no longer change an answer after
// FLOWHOOK_CALLBACK_RETENTION, keeps rows of a running execution however old they are, and a
// purged URL is answered 404 like any closed wait; a key held by an execution that closed while
// it waited is free for the next execution at once.
import test from 'ava';
import { purgeCallbackWaits } from '../../engine/domain/callbacks/callback-wait-purge.ts';
import { eventually } from '../support/eventually.ts';
import { INSTANCE, PUBLIC_URL, startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};

const HOUR_MS = 60 * 60 * 1000;
const CALLBACK_URL = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/${INSTANCE}/callbacks/([A-Za-z0-9_-]{43})$`);
const instant = (activity: string) => ({ activity, responseMode: 'INSTANT_RETURN', defaultResponseStatusCode: 200 });

test.before(async () => {
  stack = await startStack({ env: { FLOWHOOK_LOG_LEVEL: 'warn' } });
  tenant = await createTenant(stack, 'Purge Co');
  target = await startTargetServer();
  const flows: Record<string, unknown[]> = {
    'purge.url': [
      {
        httpRequest: {
          description: 'Send the URL',
          method: 'POST',
          url: `${target.url}/sent/{{Execution.Id}}`,
          body: '{"callbackUrl": "${Callbacks.paid.url}"}',
        },
      },
      { name: 'paid', waitForCallback: { description: 'Wait for payment', timeout: '10m' } },
    ],
    'purge.key': [
      {
        name: 'order',
        waitForCallback: { description: 'Wait for the shipment', timeout: '10m', key: '${Trigger.Payload.orderId}' },
      },
    ],
    // The wait times out at once and the execution goes on running: its key row is expired, not closed.
    'purge.brief': [
      {
        name: 'order',
        waitForCallback: { description: 'Wait briefly', timeout: '1s', key: '${Trigger.Payload.orderId}' },
      },
      { sleep: { description: 'Stay running', duration: '60s' } },
    ],
  };
  for (const [activity, steps] of Object.entries(flows)) {
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), instant(activity), steps))
    ).secret;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

async function start(activity: string, payload: Record<string, unknown>): Promise<string> {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity]!,
    auth: tenant.auth,
    payloadText: JSON.stringify(payload),
  });
  if (answer.status !== 200 || !answer.executionId) throw new Error(`call failed: ${answer.status} ${answer.text}`);
  return answer.executionId;
}

/** Starts the URL flow; resolves to the execution id and the token it sent out. */
async function startUrlWait(): Promise<{ executionId: string; token: string }> {
  const executionId = await start('purge.url', {});
  const sent = await target.waitFor(`/sent/${executionId}`);
  const token = CALLBACK_URL.exec((JSON.parse(sent.body) as { callbackUrl: string }).callbackUrl)?.[1];
  if (!token) throw new Error('no callback URL was sent');
  return { executionId, token };
}

function postCallback(token: string, body: string): Promise<Response> {
  return fetch(`${stack.facadeUrl}/${INSTANCE}/callbacks/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
}

/** flowWebhook_Resume for the key flow, with the tenant's credentials. */
function resumeKey(key: string): Promise<Response> {
  return fetch(
    `${stack.facadeUrl}/${INSTANCE}/ODataV4/flowWebhook_Resume?company=${encodeURIComponent(tenant.company)}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: tenant.auth },
      body: JSON.stringify({ activity: 'purge.key', secret: secrets['purge.key'], key, payload: { shipped: true } }),
    },
  );
}

function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  return stack.engine.orm.em.getConnection().execute<T[]>(text, params);
}

async function rowsOf(executionId: string): Promise<{ used: boolean; key: boolean }[]> {
  const rows = await sql<{ used_at: Date | null; expires_at: Date | null }>(
    'select used_at, expires_at from callback_wait where execution_id = ?',
    [executionId],
  );
  return rows.map((row) => ({ used: row.used_at !== null, key: row.expires_at !== null }));
}

/** Ages every timestamp of the execution's rows by `hours`, as if they had been written that long ago. */
async function age(executionId: string, hours: number): Promise<void> {
  const seconds = hours * 3600;
  await sql(
    `update callback_wait set created_at = created_at - make_interval(secs => ?), used_at = used_at - make_interval(secs => ?), expires_at = expires_at - make_interval(secs => ?) where execution_id = ?`,
    [seconds, seconds, seconds, executionId],
  );
}

async function registered(executionId: string): Promise<void> {
  await eventually(() => rowsOf(executionId), {
    until: (rows) => rows.length > 0,
    timeoutMs: 20_000,
    what: 'the key wait registered',
  });
}

const options = () => ({
  orm: stack.engine.orm,
  temporal: stack.engine.client,
  retentionMs: HOUR_MS,
});

test.serial(
  'used rows go after the retention; a retried delivery then gets 404 instead of the first answer',
  async (t) => {
    const used = await startUrlWait();
    const fresh = await startUrlWait();
    for (const wait of [used, fresh]) t.is((await postCallback(wait.token, '{"paid": true}')).status, 202);
    t.deepEqual(await rowsOf(used.executionId), [{ used: true, key: false }]);
    await age(used.executionId, 2);

    await purgeCallbackWaits(options());
    t.deepEqual(await rowsOf(used.executionId), []);
    t.deepEqual(await rowsOf(fresh.executionId), [{ used: true, key: false }], 'used within the retention: kept');
    t.is(
      (await postCallback(fresh.token, '{"paid": true}')).status,
      202,
      'the retried delivery still gets its first answer',
    );
    t.is((await postCallback(used.token, '{"paid": true}')).status, 404);
  },
);

test.serial(
  'an unused row stays while its execution runs, however old; it goes once the execution closed or does not exist',
  async (t) => {
    const running = await startUrlWait();
    const closed = await startUrlWait();
    await stack.engine.client.workflow
      .getHandle(closed.executionId)
      .terminate('test: the execution ends without its callback');
    for (const wait of [running, closed]) await age(wait.executionId, 24 * 400);
    // A row whose execution never existed in this namespace (a restored database, a deleted namespace).
    await sql(
      `insert into callback_wait (lookup, company, activity, execution_id, step, sensitive, created_at) values ('t:purge-ghost', ?, 'purge.url', 'no-such-execution-purge', 'paid', false, now() - interval '2 days')`,
      [tenant.company],
    );

    const round = await purgeCallbackWaits(options());
    t.true(round.described >= 3, `described ${round.described}`);
    t.deepEqual(await rowsOf(running.executionId), [{ used: false, key: false }]);
    t.deepEqual(await rowsOf(closed.executionId), []);
    t.deepEqual(await rowsOf('no-such-execution-purge'), []);
    // The running execution's URL still works after the purge.
    t.is((await postCallback(running.token, '{"late": "but fine"}')).status, 202);
  },
);

test.serial('Temporal not answering: the round ends with the error and keeps every unused row', async (t) => {
  const closed = await startUrlWait();
  await stack.engine.client.workflow.getHandle(closed.executionId).terminate('test');
  await age(closed.executionId, 24 * 400);
  const unreachable = {
    workflow: {
      getHandle: () => ({ describe: () => Promise.reject(new Error('14 UNAVAILABLE: connect ECONNREFUSED')) }),
    },
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
  } as unknown as typeof stack.engine.client;
  await t.throwsAsync(purgeCallbackWaits({ ...options(), temporal: unreachable }), {
    message: /Temporal did not say whether execution/,
  });
  t.deepEqual(await rowsOf(closed.executionId), [{ used: false, key: false }]);
  await purgeCallbackWaits(options());
  t.deepEqual(await rowsOf(closed.executionId), [], 'the next round with Temporal back deletes them');
});

test.serial(
  'a key row expired longer ago than the retention goes although its execution runs; a waiting key stays',
  async (t) => {
    const expired = await start('purge.brief', { orderId: 'PK-old' });
    const waiting = await start('purge.key', { orderId: 'PK-now' });
    await registered(expired);
    await registered(waiting);
    // Once the 1s wait has timed out (the execution has gone on to its sleep), make it two hours ago.
    // The execution sleeps on: still RUNNING.
    const waitTimedOut = async () =>
      ((await stack.temporal.workflow.getHandle(expired).fetchHistory()).events ?? []).some(
        (event) => event.timerFiredEventAttributes,
      );
    await eventually(waitTimedOut, { what: 'the brief wait timed out (its timer fired)' });
    await age(expired, 2);
    t.is((await stack.engine.client.workflow.getHandle(expired).describe()).status.name, 'RUNNING');

    // Several engines purge at once (rounds of the retention schedule): they do not get in each other's way.
    await Promise.all([0, 1].map(() => purgeCallbackWaits(options())));
    t.deepEqual(await rowsOf(expired), []);
    t.deepEqual(await rowsOf(waiting), [{ used: false, key: true }]);
    const resumed = await resumeKey('PK-now');
    t.is(resumed.status, 202, 'the waiting key still resumes its execution');
    t.is(resumed.headers.get('x-flowhook-execution-id'), waiting);
  },
);

test.serial(
  'a key held by an execution that closed while it waited is free for the next execution at once',
  async (t) => {
    const first = await start('purge.key', { orderId: 'PK-take' });
    await registered(first);
    await stack.engine.client.workflow.getHandle(first).terminate('test: the order was cancelled by hand');
    const second = await start('purge.key', { orderId: 'PK-take' });
    await registered(second);
    t.deepEqual(await rowsOf(first), [], "the closed execution's unused rows are forgotten");
    t.deepEqual(await rowsOf(second), [{ used: false, key: true }]);
    t.is(
      (await stack.engine.client.workflow.getHandle(second).describe()).status.name,
      'RUNNING',
      'the second wait did not fail',
    );
    const resumed = await resumeKey('PK-take');
    t.is(resumed.status, 202);
    t.is(resumed.headers.get('x-flowhook-execution-id'), second);
  },
);

test.serial('a key held by an execution that still waits stays refused for another', async (t) => {
  const first = await start('purge.key', { orderId: 'PK-busy' });
  await registered(first);
  const second = await start('purge.key', { orderId: 'PK-busy' });
  const handle = stack.engine.client.workflow.getHandle(second);
  // The second execution's wait fails: another execution still waits for this key.
  await t.throwsAsync(handle.result());
  t.deepEqual(await rowsOf(first), [{ used: false, key: true }]);
  t.is((await resumeKey('PK-busy')).headers.get('x-flowhook-execution-id'), first);
});
