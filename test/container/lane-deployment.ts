// A deployment of the image as docs/how-to/deploy.md describes it: PostgreSQL and the official
// Temporal server (the real-server lane's, bin/embedded/) on the host's loopback, and engine,
// worker and facade as three containers of the image on the host network with ports of their
// own; the engine bootstrapped with FLOWHOOK_ADMIN_TOKEN, and the facade's, the worker's and an
// operator's service accounts made with the CLI from the image.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEARCH_ATTRIBUTES } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { startEmbeddedPostgres } from '../../bin/embedded/embedded-postgres.ts';
import { canConnect, findFreePort } from '../../bin/embedded/free-port.ts';
import { resolveTemporalCli } from '../../bin/embedded/temporal-cli.ts';
import { startTemporalServer } from '../../bin/embedded/temporal-server.ts';
import { resolveTemporalServer } from '../../bin/embedded/temporal-server-install.ts';
import { eventually } from '../support/eventually.ts';
import { cli, healthy, logs, remove, startRole, type PodmanRun } from './podman.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
export type Role = 'engine' | 'worker' | 'facade';
export const ROLES: readonly Role[] = ['engine', 'worker', 'facade'];

export interface LaneDeployment {
  image: string;
  /** The container of each role. */
  names: Record<Role, string>;
  facadeUrl: string;
  /** Each role's environment, as given to its container (secrets included: never print it). */
  env: Record<Role, Record<string, string>>;
  /** `flowhook …` from the image as the operator (ops-cli's admin token). */
  cli(args: readonly string[], volumes?: readonly string[]): Promise<PodmanRun>;
  /** The last lines of every container's log, for a failure's report. */
  logs(): Promise<string>;
  stop(): Promise<void>;
}

export async function startLaneDeployment(image: string, say: (message: string) => void): Promise<LaneDeployment> {
  const work = mkdtempSync(join(tmpdir(), 'flowhook-container-lane-'));
  const stops: (() => Promise<unknown>)[] = [async () => rmSync(work, { recursive: true, force: true })];
  const suffix = randomUUID().slice(0, 8);
  const names = {
    engine: `flowhook-lane-engine-${suffix}`,
    worker: `flowhook-lane-worker-${suffix}`,
    facade: `flowhook-lane-facade-${suffix}`,
  };
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch((error: unknown) => say(`stop failed: ${String(error)}`));
  };
  try {
    say('starting PostgreSQL and the Temporal server (on PostgreSQL) on loopback…');
    const dataDir = join(root, '.flowhook');
    const cliPath = await resolveTemporalCli({ dataDir, log: say, configuredPath: process.env.TEMPORAL_CLI });
    const postgres = await startEmbeddedPostgres({ dataDir: work, port: await findFreePort(), log: say });
    stops.push(() => postgres.stop());
    const temporal = await startTemporalServer({
      install: await resolveTemporalServer({ dataDir, log: say, home: process.env.TEMPORAL_SERVER_HOME }),
      cliPath,
      workDir: join(work, 'temporal-server'),
      postgresUrl: postgres.url,
      createDatabase: (name) => postgres.createDatabase(name),
      searchAttributes: SEARCH_ATTRIBUTES,
      log: say,
    });
    stops.push(() => temporal.stop());
    stops.push(() => remove(Object.values(names)));

    const port = async () => String(await findFreePort());
    const ports = {
      FLOWHOOK_ENGINE_PORT: await port(),
      FLOWHOOK_FACADE_PORT: await port(),
      FLOWHOOK_ENGINE_METRICS_PORT: await port(),
      FLOWHOOK_WORKER_METRICS_PORT: await port(),
      FLOWHOOK_FACADE_METRICS_PORT: await port(),
    };
    const engineUrl = `http://127.0.0.1:${ports.FLOWHOOK_ENGINE_PORT}`;
    const shared = {
      ...ports,
      TEMPORAL_ADDRESS: temporal.address,
      FLOWHOOK_TASK_QUEUE: `lane-${suffix}`,
      FLOWHOOK_ENGINE_URL: engineUrl,
      FLOWHOOK_LOG_LEVEL: 'info',
    };
    const payloadKey = randomBytes(32).toString('base64');
    // The deployment's first admin credential (≥ 32 characters), as `openssl rand -base64 32` makes one.
    const bootstrap = randomBytes(32).toString('base64');
    const env: Record<Role, Record<string, string>> = {
      engine: {
        ...shared,
        FLOWHOOK_DATABASE_URL: await postgres.createDatabase('flowhook'),
        FLOWHOOK_ADMIN_TOKEN: bootstrap,
        FLOWHOOK_PAYLOAD_KEY: payloadKey,
        FLOWHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
      },
      worker: { ...shared, FLOWHOOK_PAYLOAD_KEY: payloadKey },
      // The host's network: the public door stays on loopback here.
      facade: { ...shared, FLOWHOOK_FACADE_HOST: '127.0.0.1' },
    };

    say(`starting the engine container (${image})…`);
    await startRole(image, names.engine, 'engine', env.engine);
    await eventually(() => canConnect('127.0.0.1', Number(ports.FLOWHOOK_ENGINE_PORT)), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: 'the engine container listening',
    });
    await eventually(() => healthy(names.engine), {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: "the engine container's health check passing",
    });

    say('creating the service accounts with the CLI from the image…');
    const asBootstrap = { FLOWHOOK_ENGINE_URL: engineUrl, FLOWHOOK_ADMIN_TOKEN: bootstrap };
    const account = async (...args: string[]) => {
      const run = await cli(image, asBootstrap, ['service-account', 'create', ...args, '--json']);
      if (run.code !== 0)
        throw new Error(`flowhook service-account create ${args.join(' ')} exited ${run.code}: ${run.err}`);
      return (JSON.parse(run.out) as { token: string }).token;
    };
    env.facade.FLOWHOOK_ENGINE_TOKEN = await account(
      'facade-1',
      '--scope',
      'invoke',
      '--all-companies',
      '--forwards-callers',
    );
    env.worker.FLOWHOOK_ENGINE_TOKEN = await account('worker-1', '--scope', 'records');
    const operator = {
      FLOWHOOK_ENGINE_URL: engineUrl,
      FLOWHOOK_ADMIN_TOKEN: await account('ops-cli', '--scope', 'admin'),
    };

    say('starting the worker and facade containers…');
    await startRole(image, names.worker, 'worker', env.worker);
    await startRole(image, names.facade, 'facade', env.facade);
    return {
      image,
      names,
      facadeUrl: `http://127.0.0.1:${ports.FLOWHOOK_FACADE_PORT}`,
      env,
      cli: (args, volumes = []) => cli(image, operator, args, volumes),
      logs: async () =>
        (
          await Promise.all(ROLES.map(async (role) => `--- ${role} (${names[role]}) ---\n${await logs(names[role])}`))
        ).join('\n'),
      stop,
    };
  } catch (error) {
    const seen = await Promise.all(
      ROLES.map(async (role) => `--- ${role} ---\n${await logs(names[role]).catch(() => '(none)')}`),
    );
    say(`the deployment did not come up; container logs:\n${seen.join('\n')}`);
    await stop();
    throw error;
  }
}
