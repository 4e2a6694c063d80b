// A service user disabled through one engine is refused by another engine
// within a known bound, even when that engine's change feed has died without
// a word: its heartbeat misses, its caches are dropped, it reads the user anew.
// Engine A (the stack's, behind the facade) reaches PostgreSQL through a proxy
// that can freeze its listening connection alone; engine B connects directly.
import test from 'ava';
import pg from 'pg';
import {
  CHANGE_CHANNEL,
  CHANGE_FEED_APPLICATION_NAME,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_HEARTBEAT_TIMEOUT_MS,
} from '../../engine/infrastructure/cache/change-feed.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { createAdminClient, type AdminClient } from '../../bin/cli/admin-client.ts';
import { eventually } from '../support/eventually.ts';
import { startFreezableProxy, type FreezableProxy, type ProxiedConnection } from '../support/freezable-proxy.ts';
import { createTestDatabase, startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

/** The guarantee: a silently dead feed is noticed within one heartbeat interval plus its timeout. */
const REVOCATION_BOUND_MS = DEFAULT_HEARTBEAT_INTERVAL_MS + DEFAULT_HEARTBEAT_TIMEOUT_MS;
/** Scheduling and the refused call itself on a busy test machine. */
const SLACK_MS = 1500;

let database: string;
let proxy: FreezableProxy;
let stack: TestStack;
let tenant: Tenant;
let engineB: RunningEngine;
let adminB: AdminClient;
let secret: string;

test.before(async () => {
  database = await createTestDatabase();
  proxy = await startFreezableProxy(database);
  stack = await startStack({ env: { FLOWHOOK_DATABASE_URL: proxy.url } });
  engineB = await runEngine(
    readEngineConfig({ ...stack.env, FLOWHOOK_DATABASE_URL: database, FLOWHOOK_ENGINE_PORT: '0' }),
  );
  adminB = createAdminClient({ engineUrl: `http://127.0.0.1:${engineB.port}`, adminToken: stack.adminToken });
  tenant = await createTenant(stack);
  ({ secret } = await deployFlow(stack, flow(tenant.company, 'revocation', { activity: 'revocation.bound' }, [])));
});
test.after.always(async () => {
  await engineB?.close();
  await stack?.close();
  await proxy?.close();
});

/** A service user whose Basic calls go through the facade to engine A. */
async function warmUser() {
  const name = `revoked-${Math.random().toString(36).slice(2, 8)}`;
  const { accessKey } = await stack.admin.createUser({ name, company: tenant.company, permissionSet: 'FLOW ALL' });
  const auth = `Basic ${Buffer.from(`${name}:${accessKey}`).toString('base64')}`;
  const call = () =>
    callWebhook(stack, { company: tenant.company, activity: 'revocation.bound', secret, auth }).then(
      (answer) => answer.status,
    );
  return { name, call };
}

/** Milliseconds until the call answers `expected`; fails at the bound. */
async function answeredWithin(boundMs: number, call: () => Promise<number>, expected: number): Promise<number> {
  const started = performance.now();
  await eventually(call, {
    until: (status) => status === expected,
    timeoutMs: boundMs,
    intervalMs: 50,
    what: `a ${expected} within the bound`,
  });
  return performance.now() - started;
}

const engineAListening = (connection: ProxiedConnection) =>
  !connection.frozen && connection.clientSent.includes(`listen ${CHANGE_CHANNEL}`);

test.serial(
  'engine A refuses a user disabled through engine B within the bound although its listening connection went silent',
  async (t) => {
    const { name, call } = await warmUser();
    t.is(await call(), 200);
    t.is(await call(), 200, 'served from engine A’s warm cache');

    t.is(proxy.freeze(engineAListening), 1, 'engine A’s listening connection, and nothing else, goes silent');
    const disabledAt = performance.now();
    await adminB.setUserState({ name, enabled: false });
    t.is(
      await call(),
      200,
      'right after: engine A has not noticed the silence yet (the stale cache the bound is about)',
    );
    const refusedAfter = await answeredWithin(REVOCATION_BOUND_MS + SLACK_MS, call, 401);
    t.log(
      `refused ${Math.round(performance.now() - disabledAt)} ms after the disable (bound ${REVOCATION_BOUND_MS} ms + ${SLACK_MS} ms slack)`,
    );
    t.true(refusedAfter <= REVOCATION_BOUND_MS + SLACK_MS);

    // Engine A listens again over a fresh connection: changes reach it within milliseconds once more.
    await answeredWithin(5000, async () => proxy.connections.filter(engineAListening).length, 1);
    await adminB.setUserState({ name, enabled: true });
    const acceptedAfter = await answeredWithin(SLACK_MS, call, 200);
    t.log(`re-enabled user accepted ${Math.round(acceptedAfter)} ms after the change`);
  },
);

test.serial(
  'engine A refuses a user disabled through engine B at once when the server terminates its listening backend',
  async (t) => {
    const { name, call } = await warmUser();
    t.is(await call(), 200);
    t.is(await call(), 200, 'served from engine A’s warm cache');

    const ports = proxy.connections.filter(engineAListening).map((connection) => connection.upstreamPort);
    t.is(ports.length, 1);
    const admin = new pg.Client({ connectionString: database });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        'select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = current_database() and application_name = $1 and client_port = any($2::int[])',
        [CHANGE_FEED_APPLICATION_NAME, ports],
      );
      t.deepEqual(rows, [{ terminated: true }], 'exactly engine A’s listening backend');
    } finally {
      await admin.end();
    }
    await adminB.setUserState({ name, enabled: false });
    const refusedAfter = await answeredWithin(REVOCATION_BOUND_MS + SLACK_MS, call, 401);
    t.log(`refused ${Math.round(refusedAfter)} ms after the disable`);
  },
);
