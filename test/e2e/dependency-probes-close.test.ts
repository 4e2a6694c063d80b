// The engine closes its dependency probes before the ORM (engine/main.ts). A
// PostgreSQL probe still opening its connection when the pool ends used to
// leave that connection checked out for good: the driver, handed the client
// after the pool was gone, failed with "Cannot read properties of undefined
// (reading 'Client')" and never released it, so `orm.close()` — and the
// engine's close — never returned and the process never exited. Here the
// probe's connection handshake is held at a proxy until the pool ends.
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { startDependencyProbes } from '../../engine/infrastructure/health/dependency-probes.ts';
import { openOrm } from '../../engine/infrastructure/storage/orm.ts';
import { eventually } from '../support/eventually.ts';
import { startFreezableProxy, type FreezableProxy } from '../support/freezable-proxy.ts';
import { createTestDatabase, testInfrastructure } from '../support/stack.ts';

let proxy: FreezableProxy | undefined;
let temporal: Connection | undefined;

test.after.always(async () => {
  // Also drops a connection left checked out (the failure), so a failing run still exits.
  await proxy?.close();
  await temporal?.close();
});

test('closing the probes waits for a PostgreSQL probe under way, so the ORM closed next ends its pool', async (t) => {
  t.timeout(60_000, 'orm.close() after probes.close() never returned: the pool waits for a connection nobody releases');
  proxy = await startFreezableProxy(await createTestDatabase());
  const orm = await openOrm({ databaseUrl: proxy.url, connectTimeoutMs: 3000 });
  temporal = await Connection.connect({ address: testInfrastructure().temporalAddress });
  const pool = await orm.em.getConnection().getNativeClient();
  // Every open connection taken, so the probe opens a new one; its handshake goes unanswered for now.
  const held = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
  proxy.partition();
  const opened = proxy.connections.length;
  const probes = startDependencyProbes(orm, new Client({ connection: temporal }), pino({ level: 'silent' }), {
    namespace: 'default',
    taskQueue: 'no-worker-polls-this',
  });
  await eventually(() => proxy!.connections.length > opened, { intervalMs: 5, what: 'the probe opening a connection' });

  // The engine's order: probes, then the ORM.
  const stopped = (async () => {
    await probes.close();
    for (const client of held) client.release();
    await orm.close(true);
  })();
  // The handshake goes on once the pool is ending: a probe close() did not wait for completes it into
  // an ended pool; one it waited for has given up at the connect timeout before the pool ended.
  await eventually(() => pool.ending, { intervalMs: 5, what: 'the pool ending' });
  proxy.thaw();
  await stopped;
  t.true(pool.ended);
  t.is(pool.totalCount, 0, 'no connection is left checked out');
});
