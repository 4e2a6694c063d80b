// Whether the engine's dependencies answer right now: PostgreSQL (`select 1`)
// and Temporal (GetSystemInfo), probed every couple of seconds with a short
// deadline, one probe of each in flight at a time (a hung connection must not
// pile probes up). The gRPC health service reports them as
// `flowhook.dependency.postgresql` and `flowhook.dependency.temporal`, which
// the facade's /readyz asks for — so a load balancer can take an engine whose
// database or Temporal is gone out of rotation, and say which one.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';

export const POSTGRESQL_HEALTH_NAME = 'flowhook.dependency.postgresql';
export const TEMPORAL_HEALTH_NAME = 'flowhook.dependency.temporal';

export interface DependencyProbes {
  /** Dependency health name → reachable at the last probe (false until the first answer). */
  readonly status: Readonly<Record<string, boolean>>;
  /** Stops probing and waits for the probes under way, so the ORM and the Temporal client can be closed after it. */
  close(): Promise<void>;
}

export function startDependencyProbes(orm: MikroORM, client: Client, logger: Logger, intervalMs = 2000, timeoutMs = 1500): DependencyProbes {
  const status: Record<string, boolean> = { [POSTGRESQL_HEALTH_NAME]: false, [TEMPORAL_HEALTH_NAME]: false };
  const probes: Record<string, () => Promise<unknown>> = {
    [POSTGRESQL_HEALTH_NAME]: () => orm.em.getConnection().execute('select 1'),
    [TEMPORAL_HEALTH_NAME]: () => client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({})),
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
      else logger.warn({ dependency: name, reason: error instanceof Error ? error.message : String(error) }, 'dependency unreachable');
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
