// Temporal or PostgreSQL unreachable: callers get a quick 503 with
// Retry-After (never a hang, never a 200 without a durable start), and the
// service recovers by itself when the dependency is back.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../bin/embedded/embedded-postgres.ts';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../bin/embedded/temporal-dev-server.ts';
import { SEARCH_ATTRIBUTES } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { equalTo, eventually } from '../support/eventually.ts';
import { startStack, testInfrastructure, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

const quiet = () => undefined;
let work: string;
let postgres: EmbeddedPostgres;
let postgresPort: number;
let temporal: TemporalDevServer;
let temporalPort: number;
let stack: TestStack;
let tenant: Tenant;
let secret: string;
let syncSecret: string;

const startTemporal = () =>
  startTemporalDevServer({
    cliPath: testInfrastructure().temporalCli,
    inMemory: true,
    headless: true,
    port: temporalPort,
    searchAttributes: SEARCH_ATTRIBUTES,
    log: quiet,
  });

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), 'flowhook-down-'));
  [postgresPort, temporalPort] = [await findFreePort(), await findFreePort()];
  postgres = await startEmbeddedPostgres({ dataDir: work, port: postgresPort, log: quiet });
  temporal = await startTemporal();
  stack = await startStack({
    env: {
      FLOWHOOK_DATABASE_URL: await postgres.createDatabase('flowhook'),
      TEMPORAL_ADDRESS: temporal.address,
      FLOWHOOK_TEMPORAL_TIMEOUT_MS: '1500',
      FLOWHOOK_DATABASE_TIMEOUT_MS: '1000',
    },
  });
  tenant = await createTenant(stack);
  ({ secret } = await deployFlow(stack, flow(tenant.company, 'durable', { activity: 'durable.instant' }, [])));
  ({ secret: syncSecret } = await deployFlow(
    stack,
    flow(
      tenant.company,
      'durable-sync',
      { activity: 'durable.sync', responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 60 },
      [{ respond: { statusCode: 200, body: 'ok' } }],
    ),
  ));
});
test.after.always(async () => {
  await stack?.close().catch(() => undefined);
  await temporal?.stop();
  await postgres?.stop();
  rmSync(work, { recursive: true, force: true });
});

const call = () =>
  callWebhook(stack, { company: tenant.company, activity: 'durable.instant', secret, auth: tenant.auth });

/** Executions of the sync flow on the (restarted, empty) server, read with the engine's own client. */
async function syncExecutions(): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of stack.engine.client.workflow.list({ query: `TaskQueue = "${stack.taskQueue}"` })) {
    if (execution.workflowId.startsWith('durable.sync:')) ids.push(execution.workflowId);
  }
  return ids;
}

/** Calls until the answer is `status` (the service recovers by itself once the dependency is back). */
async function until(status: number, timeoutMs = 30_000): Promise<number> {
  return eventually(async () => (await call()).status, {
    until: equalTo(status),
    timeoutMs,
    intervalMs: 250,
    what: `a ${status} again`,
  });
}

test.serial(
  'Temporal down: 503 with Retry-After and an OData error; back up: 200 again without a restart',
  async (t) => {
    t.is((await call()).status, 200);
    await temporal.stop();
    const down = await call();
    t.is(down.status, 503);
    t.truthy(down.headers.get('retry-after'));
    t.is(typeof JSON.parse(down.text).error.message, 'string');
    t.is(down.executionId, null);
    // A sync call does not wait out its 60 s window: the engine notices Temporal is gone.
    const started = Date.now();
    const syncDown = await callWebhook(stack, {
      company: tenant.company,
      activity: 'durable.sync',
      secret: syncSecret,
      auth: tenant.auth,
    });
    t.is(syncDown.status, 503);
    t.truthy(syncDown.headers.get('retry-after'));
    t.true(Date.now() - started < 30_000, `answered after ${Date.now() - started} ms`);
    t.log(`sync 503 after ${Date.now() - started} ms`);
    temporal = await startTemporal();
    t.is(await until(200), 200);
    // The refused sync call must not reach the server late through a retry (the SDK backs off up to
    // 5 s): waiting out that back-off is the point, since what is proved is that nothing arrives.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    t.deepEqual(await syncExecutions(), [], 'the call answered 503 started nothing');
    const syncUp = await callWebhook(stack, {
      company: tenant.company,
      activity: 'durable.sync',
      secret: syncSecret,
      auth: tenant.auth,
    });
    t.is(syncUp.status, 200);
    t.is(syncUp.value!.body, 'ok');
  },
);

test.serial('PostgreSQL down: 503; back up: 200 again without a restart', async (t) => {
  t.is((await call()).status, 200);
  await postgres.stop();
  const down = await call();
  t.is(down.status, 503);
  t.truthy(down.headers.get('retry-after'));
  postgres = await startEmbeddedPostgres({ dataDir: work, port: postgresPort, log: quiet });
  t.is(await until(200), 200);
});
