// The worker's probes, served on its metrics port without credentials (they
// say ready or not, and which dependency is not, nothing else): `/healthz`
// answers while the process serves HTTP (liveness); `/readyz` is 200 only when
// the worker polls its task queue (state RUNNING), Temporal answers its health
// check and the engine answers its own (record steps and connections need it).
import type { Client } from '@connectrpc/connect';
import type { NativeConnection } from '@temporalio/worker';
import type { ProbeAnswer } from '../../common/metrics/metrics-listener.ts';
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from '../../proto/gen/grpc/health/v1/health_pb.js';

export interface ReadinessSources {
  /** The SDK worker's state: RUNNING while it polls. */
  workerState(): string;
  temporal: Pick<NativeConnection, 'healthService'>;
  engine: Pick<Client<typeof Health>, 'check'>;
}

type CheckState = 'ok' | 'not serving' | 'unreachable' | 'not running';

const CHECK_TIMEOUT_MS = 2000;
// grpc.health.v1 SERVING, as Temporal's health service answers it.
const TEMPORAL_SERVING = 1;

export function workerProbes(
  sources: ReadinessSources,
  onReadiness: (ready: boolean) => void,
): Record<string, () => Promise<ProbeAnswer> | ProbeAnswer> {
  return {
    '/healthz': () => ({ status: 200, body: { status: 'alive' } }),
    async '/readyz'() {
      const [temporal, engine] = await Promise.all([checkTemporal(sources.temporal), checkEngine(sources.engine)]);
      const checks: Record<string, CheckState> = {
        worker: sources.workerState() === 'RUNNING' ? 'ok' : 'not running',
        temporal,
        engine,
      };
      const ready = Object.values(checks).every((state) => state === 'ok');
      onReadiness(ready);
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', checks } };
    },
  };
}

async function checkTemporal(connection: Pick<NativeConnection, 'healthService'>): Promise<CheckState> {
  try {
    const answer = await withTimeout(connection.healthService.check({}));
    return answer.status === TEMPORAL_SERVING ? 'ok' : 'not serving';
  } catch {
    return 'unreachable';
  }
}

async function checkEngine(engine: Pick<Client<typeof Health>, 'check'>): Promise<CheckState> {
  try {
    const answer = await engine.check({ service: '' }, { timeoutMs: CHECK_TIMEOUT_MS });
    return answer.status === ServingStatus.SERVING ? 'ok' : 'not serving';
  } catch {
    return 'unreachable';
  }
}

function withTimeout<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
