// Whether the engine's dependencies answer right now: PostgreSQL (`select 1`),
// Temporal (GetSystemInfo) and the workers (a worker polled the flow task
// queue lately: DescribeTaskQueue), probed every couple of seconds with a
// short deadline, one probe of each in flight at a time (a hung connection
// must not pile probes up). The gRPC health service reports them as
// `flowhook.dependency.postgresql`, `flowhook.dependency.temporal` and
// `flowhook.dependency.workers`, which the facade's /readyz asks for — so a
// load balancer can take an engine whose database or Temporal is gone out of
// rotation, and an operator sees that calls are accepted while no worker runs
// their executions (a worker that died, or never started), and which.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { POLLER_SEEN_WITHIN_MS, workflowPollers } from '../temporal/task-queue-pollers.ts';

export const POSTGRESQL_HEALTH_NAME = 'flowhook.dependency.postgresql';
export const TEMPORAL_HEALTH_NAME = 'flowhook.dependency.temporal';
export const WORKERS_HEALTH_NAME = 'flowhook.dependency.workers';

export interface WorkerPollers {
  namespace: string;
  taskQueue: string;
  /** Told how many workers polled the flow task queue lately, at every probe that got an answer. */
  onCount?: (pollers: number) => void;
}

export interface DependencyProbes {
  /** Dependency health name → reachable at the last probe (false until the first answer). */
  readonly status: Readonly<Record<string, boolean>>;
  /** Stops probing and waits for the probes under way, so the ORM and the Temporal client can be closed after it. */
  close(): Promise<void>;
}

export function startDependencyProbes(
  orm: MikroORM,
  client: Client,
  logger: Logger,
  workers: WorkerPollers,
  intervalMs = 2000,
  timeoutMs = 1500,
): DependencyProbes {
  const status: Record<string, boolean> = {
    [POSTGRESQL_HEALTH_NAME]: false,
    [TEMPORAL_HEALTH_NAME]: false,
    [WORKERS_HEALTH_NAME]: false,
  };
  const probes: Record<string, () => Promise<unknown>> = {
    [POSTGRESQL_HEALTH_NAME]: () => orm.em.getConnection().execute('select 1'),
    [TEMPORAL_HEALTH_NAME]: () =>
      client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({})),
    [WORKERS_HEALTH_NAME]: async () => {
      const pollers = await workflowPollers(client, workers, timeoutMs);
      const now = Date.now();
      const live = new Set(
        pollers.filter((poller) => now - poller.lastSeen <= POLLER_SEEN_WITHIN_MS).map((poller) => poller.identity),
      ).size;
      workers.onCount?.(live);
      if (live === 0) throw new Error(`no worker polls the task queue ${workers.taskQueue}`);
    },
  };
  // A probe that hangs (a frozen connection) counts as down at its deadline, but no second probe
  // of that dependency starts until it settles: hung probes must not pile up in the pool.
  const inFlight = new Map<string, Promise<void>>();
  const probe = (name: string) => {
    if (inFlight.has(name)) return;
    const timer = setTimeout(() => report(name, false, new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    const settled = probes[name]!()
      .then(
        () => report(name, true),
        (error: unknown) => report(name, false, error),
      )
      .finally(() => {
        clearTimeout(timer);
        inFlight.delete(name);
      });
    inFlight.set(name, settled);
  };
  const report = (name: string, up: boolean, error?: unknown) => {
    if (status[name] !== up) {
      if (up) logger.info({ dependency: name }, 'dependency reachable');
      else
        logger.warn(
          { dependency: name, reason: error instanceof Error ? error.message : String(error) },
          'dependency unreachable',
        );
    }
    status[name] = up;
  };
  const probeAll = () => Object.keys(probes).forEach(probe);
  probeAll();
  const timer = setInterval(probeAll, intervalMs);
  timer.unref();
  return {
    status,
    async close() {
      clearInterval(timer);
      // The engine closes the ORM next. A probe still opening its connection when the pool ends is
      // handed that connection afterwards, and the driver (no pool any more) drops it unreleased:
      // the pool's end, and so the engine's close, would wait for it forever. The connection
      // attempt is bounded (FLOWHOOK_DATABASE_TIMEOUT_MS), the Temporal probe by its deadline; a
      // query stuck on a frozen connection would hold the pool's end just the same without this wait.
      await Promise.all(inFlight.values());
    },
  };
}

/**
 * `/healthz` and `/readyz` on the engine's metrics port: alive while it serves HTTP; ready while
 * every dependency answered its last probe (503 naming the ones that did not).
 */
export function engineProbes(status: Readonly<Record<string, boolean>>) {
  const NAMES: Record<string, string> = {
    [POSTGRESQL_HEALTH_NAME]: 'postgresql',
    [TEMPORAL_HEALTH_NAME]: 'temporal',
    [WORKERS_HEALTH_NAME]: 'workers',
  };
  return {
    '/healthz': () => ({ status: 200, body: { status: 'alive' } }),
    '/readyz': () => {
      const checks = Object.fromEntries(
        Object.entries(status).map(([name, up]) => [NAMES[name] ?? name, up ? 'ok' : 'not ready']),
      );
      const ready = Object.values(status).every(Boolean);
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', checks } };
    },
  };
}
