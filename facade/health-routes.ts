// Probes for load balancers and Kubernetes: `GET /healthz` says the facade
// process serves HTTP (liveness: no dependency is asked, so a slow engine
// never gets the facade restarted); `GET /readyz` asks the engine's gRPC
// health service about itself, PostgreSQL, Temporal and the workers (one
// polls the flow task queue), and answers 503 naming what is not ready
// (readiness: take this facade out of rotation — calls it accepted now would
// wait for a worker).
// Neither needs credentials, and neither says more than ok / not ready.
import type { Client } from '@connectrpc/connect';
import type Router from '@koa/router';
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from '../proto/gen/grpc/health/v1/health_pb.js';
import type { FacadeState } from './facade-context.ts';

export type HealthClient = Pick<Client<typeof Health>, 'check'>;

const CHECKS = {
  engine: '',
  postgresql: 'flowhook.dependency.postgresql',
  temporal: 'flowhook.dependency.temporal',
  workers: 'flowhook.dependency.workers',
} as const;
const CHECK_TIMEOUT_MS = 2000;

export function registerHealthRoutes(router: Router<FacadeState>, health: HealthClient): void {
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'alive' };
  });
  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(
      Object.entries(CHECKS).map(async ([name, service]) => [name, await checkOne(health, service)] as const),
    );
    const checks = Object.fromEntries(results);
    const ready = results.every(([, state]) => state === 'ok');
    ctx.set('Cache-Control', 'no-store');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', checks };
  });
}

async function checkOne(health: HealthClient, service: string): Promise<'ok' | 'not serving' | 'unreachable'> {
  try {
    const answer = await health.check({ service }, { timeoutMs: CHECK_TIMEOUT_MS });
    return answer.status === ServingStatus.SERVING ? 'ok' : 'not serving';
  } catch {
    // The engine itself did not answer: every check behind it is unknown, so each says so.
    return 'unreachable';
  }
}
