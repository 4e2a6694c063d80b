// A whole flowhook stack inside one test process: a fresh database on the
// run's PostgreSQL, the engine, a worker on its own task queue and the facade,
// all on free ports, against the run's Temporal dev server.
import { randomBytes, randomUUID } from 'node:crypto';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import pg from 'pg';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { runFacade } from '../../facade/main.ts';
import { readWorkerConfig } from '../../workflows/config.ts';
import { runWorker, type RunningWorker } from '../../workflows/main.ts';
import { createAdminClient, type AdminClient } from '../../bin/cli/admin-client.ts';
import { provisionStackAccounts, type StackTokens } from './service-accounts.ts';
import { engineTransportOptions, readEngineClientTls } from '../../common/engine-client-tls.ts';
import type { SecureClientSessionOptions } from 'node:http2';

export const INSTANCE = 'BC';
/** The base URL callers see; deliberately not the listening address, to prove the envelope uses configuration. */
export const PUBLIC_URL = 'https://hooks.example.test';

export interface StackOptions {
  /** Start without a worker (executions wait in the task queue). */
  withoutWorker?: boolean;
  env?: Record<string, string>;
  /**
   * The engine port over TLS: variables for the engine (FLOWHOOK_ENGINE_TLS_*) and for each of its
   * clients (FLOWHOOK_ENGINE_CA, FLOWHOOK_ENGINE_CLIENT_CERT/_KEY). Clients then use https://localhost.
   */
  engineTls?: {
    engine: Record<string, string>;
    facade: Record<string, string>;
    worker: Record<string, string>;
    admin: Record<string, string>;
    records: Record<string, string>;
  };
}

export interface TestStack {
  facadeUrl: string;
  /** The facade's metrics port (GET /metrics for loopback clients), unless FLOWHOOK_FACADE_METRICS_PORT=off. */
  facadeMetricsUrl?: string;
  engineUrl: string;
  taskQueue: string;
  admin: AdminClient;
  temporal: TemporalClient;
  engine: RunningEngine;
  worker?: RunningWorker;
  /** The bootstrap admin token (FLOWHOOK_ADMIN_TOKEN). */
  adminToken: string;
  /** The facade's service account token (invoke, forwards callers). */
  serviceToken: string;
  tokens: StackTokens;
  /** TLS options for the test's own engine clients (recordClient); empty over h2c. */
  recordsTransport: { nodeOptions?: SecureClientSessionOptions };
  env: Record<string, string>;
  close(): Promise<void>;
}

export function testInfrastructure() {
  const postgresUrl = process.env.FLOWHOOK_TEST_POSTGRES_URL;
  const temporalAddress = process.env.FLOWHOOK_TEST_TEMPORAL_ADDRESS;
  if (!postgresUrl || !temporalAddress)
    throw new Error('run the tests with "npm test" (it starts PostgreSQL and Temporal)');
  return { postgresUrl, temporalAddress, temporalCli: process.env.FLOWHOOK_TEST_TEMPORAL_CLI ?? 'temporal' };
}

/** A new, empty database on the run's PostgreSQL. */
export async function createTestDatabase(): Promise<string> {
  const { postgresUrl } = testInfrastructure();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startStack(options: StackOptions = {}): Promise<TestStack> {
  const { temporalAddress } = testInfrastructure();
  const taskQueue = `test-${randomUUID()}`;
  const adminToken = randomBytes(24).toString('base64url');
  const env: Record<string, string> = {
    FLOWHOOK_DATABASE_URL: await createTestDatabase(),
    TEMPORAL_ADDRESS: temporalAddress,
    FLOWHOOK_TASK_QUEUE: taskQueue,
    FLOWHOOK_ENGINE_PORT: '0',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
    // Free ports: several stacks run at once, and the defaults (7051, 7052, 7053) may be taken.
    FLOWHOOK_ENGINE_METRICS_PORT: '0',
    FLOWHOOK_WORKER_METRICS_PORT: '0',
    FLOWHOOK_FACADE_METRICS_PORT: '0',
    FLOWHOOK_ADMIN_TOKEN: adminToken,
    FLOWHOOK_PAYLOAD_KEY: randomBytes(32).toString('base64'),
    FLOWHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    // The tests' target servers listen on loopback; production opens nothing by default.
    FLOWHOOK_EGRESS_ALLOW: '127.0.0.1',
    FLOWHOOK_LOG_LEVEL: 'warn',
    FLOWHOOK_PUBLIC_URL: PUBLIC_URL,
    ...options.env,
  };
  const tls = options.engineTls;
  const engine = await runEngine(readEngineConfig({ ...env, ...tls?.engine }));
  // The test server certificate names localhost.
  const engineUrl = tls ? `https://localhost:${engine.port}` : `http://127.0.0.1:${engine.port}`;
  const tokens = await provisionStackAccounts(engine.orm, engine.changes);
  const worker = options.withoutWorker
    ? undefined
    : await runWorker(
        readWorkerConfig({
          ...env,
          ...tls?.worker,
          FLOWHOOK_ENGINE_URL: engineUrl,
          FLOWHOOK_ENGINE_TOKEN: tokens.worker,
        }),
      );
  const facade = await runFacade(
    readFacadeConfig({ ...env, ...tls?.facade, FLOWHOOK_ENGINE_URL: engineUrl, FLOWHOOK_ENGINE_TOKEN: tokens.facade }),
    { handleSignals: false },
  );
  const facadeUrl = `http://127.0.0.1:${facade.port}`;
  // Under mutual TLS the admin client's certificate names test-admin, so it uses that account's token.
  const admin = tls
    ? createAdminClient({ engineUrl, adminToken: tokens.admin, engineTls: readEngineClientTls(tls.admin, engineUrl) })
    : createAdminClient({ engineUrl, adminToken });
  const connection = await Connection.connect({ address: temporalAddress });
  const temporal = new TemporalClient({ connection });
  return {
    facadeUrl,
    facadeMetricsUrl: facade.metrics && `http://127.0.0.1:${facade.metrics.port}/metrics`,
    engineUrl,
    taskQueue,
    admin,
    temporal,
    engine,
    worker,
    adminToken,
    serviceToken: tokens.facade,
    tokens,
    recordsTransport: engineTransportOptions(tls ? readEngineClientTls(tls.records, engineUrl) : undefined),
    env,
    async close() {
      await facade.close();
      await worker?.close();
      await engine.close();
      await connection.close();
    },
  };
}
