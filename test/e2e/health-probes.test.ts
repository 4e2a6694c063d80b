// Probes (issue 13, health): the facade's /healthz says it is alive whatever
// the dependencies do; /readyz asks the engine's gRPC health service and
// answers 503 naming PostgreSQL or Temporal while one of them is cut off (a
// proxy that stops forwarding), and 200 again once it is back. (No worker
// polling the flow task queue: worker-thread-death.test.ts.)
import test, { type ExecutionContext } from 'ava';
import { eventually } from '../support/eventually.ts';
import { startFreezableProxy, type FreezableProxy } from '../support/freezable-proxy.ts';
import { createTestDatabase, startStack, testInfrastructure, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let postgres: FreezableProxy;
let temporal: FreezableProxy;

test.before(async () => {
  postgres = await startFreezableProxy(await createTestDatabase());
  temporal = await startFreezableProxy(`tcp://${testInfrastructure().temporalAddress}`);
  stack = await startStack({
    env: { FLOWHOOK_DATABASE_URL: postgres.url, TEMPORAL_ADDRESS: new URL(temporal.url).host },
  });
});
test.after.always(async () => {
  postgres?.thaw();
  temporal?.thaw();
  await stack?.close();
  await postgres?.close();
  await temporal?.close();
});

interface Readiness {
  status: number;
  body: { status: string; checks: Record<string, string> };
}

async function readyz(): Promise<Readiness> {
  const response = await fetch(`${stack.facadeUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness['body'] };
}

/** Polls /readyz until it answers `status` (probes run every 2 s with a 1.5 s deadline). */
async function readinessBecomes(t: ExecutionContext, status: number, why: string): Promise<Readiness> {
  const last = await eventually(readyz, {
    until: (readiness) => readiness.status === status,
    intervalMs: 250,
    what: `${why}: /readyz ${status}`,
    show: (readiness) => `${readiness.status} ${JSON.stringify(readiness.body)}`,
  });
  t.is(last.status, status, `${why}: ${JSON.stringify(last.body)}`);
  return last;
}

test.serial('ready once the engine sees PostgreSQL and Temporal; /healthz needs no credentials', async (t) => {
  const alive = await fetch(`${stack.facadeUrl}/healthz`);
  t.is(alive.status, 200);
  t.deepEqual(await alive.json(), { status: 'alive' });
  const ready = await readinessBecomes(t, 200, 'all up');
  t.deepEqual(ready.body, {
    status: 'ready',
    checks: { engine: 'ok', postgresql: 'ok', temporal: 'ok', workers: 'ok' },
  });
});

test.serial('PostgreSQL cut off: /readyz is 503 naming it, /healthz stays 200; back when it returns', async (t) => {
  postgres.partition();
  try {
    const down = await readinessBecomes(t, 503, 'PostgreSQL partitioned');
    t.deepEqual(down.body.checks, { engine: 'ok', postgresql: 'not serving', temporal: 'ok', workers: 'ok' });
    t.is((await fetch(`${stack.facadeUrl}/healthz`)).status, 200);
  } finally {
    postgres.thaw();
  }
  await readinessBecomes(t, 200, 'PostgreSQL back');
});

test.serial('Temporal cut off: /readyz is 503 naming it; back when it returns', async (t) => {
  temporal.partition();
  try {
    const down = await readinessBecomes(t, 503, 'Temporal partitioned');
    // The engine cannot ask Temporal whether a worker polls either.
    t.deepEqual(down.body.checks, { engine: 'ok', postgresql: 'ok', temporal: 'not serving', workers: 'not serving' });
  } finally {
    temporal.thaw();
  }
  await readinessBecomes(t, 200, 'Temporal back');
});
