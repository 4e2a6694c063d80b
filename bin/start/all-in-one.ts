// `flowhook start`: PostgreSQL (embedded unless FLOWHOOK_DATABASE_URL), a
// Temporal dev server (unless TEMPORAL_ADDRESS), then engine, worker and
// facade in this process. Ctrl-C stops them in reverse order, children included.
import { join } from 'node:path';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine } from '../../engine/main.ts';
import { SEARCH_ATTRIBUTES } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { setDevServerRetention } from '../../engine/domain/retention/namespace-retention.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { runFacade } from '../../facade/main.ts';
import { readWorkerConfig } from '../../workflows/config.ts';
import { runWorker } from '../../workflows/main.ts';
import { keepDataDirPrivate } from '../data-dir-permissions.ts';
import { startEmbeddedPostgres } from '../embedded/embedded-postgres.ts';
import { resolveTemporalCli } from '../embedded/temporal-cli.ts';
import { startTemporalDevServer } from '../embedded/temporal-dev-server.ts';
import { banner, bannerJson } from './banner.ts';
import { writeFirstRunFiles } from './first-run-credentials.ts';
import { planLocalCodec } from './local-codec.ts';
import { localPayloadKeyFile, localSecretsKeyFile } from './local-tokens.ts';
import { ensureLocalServiceAccounts } from './local-service-accounts.ts';
import { engineTokenVariables } from '../../common/engine-token.ts';
import type { SeedResult } from './seed.ts';
import type { StartConfig } from './start-config.ts';
import { LOCAL_CONSOLE_PORT } from '../../common/configuration/table/console-settings.ts';
import { buildConsoleIfStale } from './local-console.ts';
import { lockDataDir } from './data-dir-lock.ts';

type Stop = () => Promise<unknown>;

export interface RunningStack {
  stop(): Promise<void>;
  /**
   * Rejects when a part stops on its own (the worker's workflow thread died, say): the caller
   * stops the rest and exits non-zero, so the stack never answers calls it can no longer run.
   */
  failed: Promise<never>;
}

export interface StartOptions {
  /** The banner as one JSON line (`flowhook start --json`). */
  json?: boolean;
  /**
   * Seeds an empty installation (seed.ts) once the stack answers, with the admin token. The `start` command
   * passes it with the CLI's admin client and flow-file reader, so start/ needs nothing of cli/.
   */
  seed: (engineUrl: string, adminToken: string) => Promise<SeedResult | undefined>;
}

export async function startAllInOne(config: StartConfig, options: StartOptions): Promise<RunningStack> {
  const stops: Stop[] = [];
  const say = (message: string) => process.stderr.write(`flowhook: ${message}\n`);
  keepDataDirPrivate(config.dataDir, say);
  // Before anything else: a second start on this directory must not touch the first one's parts.
  const lock = await lockDataDir(config.dataDir);
  const stop = async () => {
    for (const step of stops.reverse()) {
      try {
        await step();
      } catch (error) {
        say(`while stopping: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    stops.length = 0;
  };
  stops.push(() => lock.release());
  try {
    // The components' environment: the operator's, with start's local defaults (a loopback
    // endpoint, generated key files). Components log at their own default level (info), as when run apart.
    const env: Record<string, string | undefined> = { ...config.env, FLOWHOOK_FACADE_HOST: config.facadeHost };
    env.FLOWHOOK_PAYLOAD_KEY_FILE = localPayloadKeyFile(config.dataDir, config.settings);
    env.FLOWHOOK_SECRETS_KEY_FILE = localSecretsKeyFile(config.dataDir, config.settings);

    if (!config.databaseUrl) {
      say('starting embedded PostgreSQL…');
      const postgres = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedPostgresPort,
        log: say,
      });
      stops.push(() => postgres.stop());
      env.FLOWHOOK_DATABASE_URL = await postgres.createDatabase('flowhook');
    }

    let temporalUiUrl: string | undefined;
    if (!config.temporalAddress) {
      say('starting the Temporal dev server…');
      const cliPath = await resolveTemporalCli({
        dataDir: config.dataDir,
        log: say,
        configuredPath: config.temporalCli,
      });
      // The engine's codec server, so the Web UI can show doNotLogPayload payloads to a signed-in operator.
      const codec = await planLocalCodec(config.settings, config.temporalUiPort);
      Object.assign(env, codec?.env);
      const temporal = await startTemporalDevServer({
        cliPath,
        dbFile: join(config.dataDir, 'temporal.db'),
        port: config.temporalPort,
        uiPort: config.temporalUiPort,
        searchAttributes: SEARCH_ATTRIBUTES,
        codecEndpoint: codec?.endpoint,
        log: say,
      });
      stops.push(() => temporal.stop());
      env.TEMPORAL_ADDRESS = temporal.address;
      // How long its closed executions are kept: set at every start, so a changed setting holds from the next one.
      await setDevServerRetention(temporal.address, 'default', config.settings.FLOWHOOK_EXECUTION_RETENTION);
      temporalUiUrl = temporal.uiUrl;
      // The console links executions to this Web UI unless the operator named another.
      env.FLOWHOOK_TEMPORAL_UI_URL ??= temporal.uiUrl;
    }

    // The web console next to the engine: on by default here, `FLOWHOOK_CONSOLE_PORT=off` runs none.
    const consoleByDefault = config.settings.FLOWHOOK_CONSOLE_PORT === undefined;
    if (config.settings.FLOWHOOK_CONSOLE_PORT !== 'off') await buildConsoleIfStale(say);
    if (consoleByDefault) env.FLOWHOOK_CONSOLE_PORT = String(LOCAL_CONSOLE_PORT);
    const engineConfig = readEngineConfig(env);
    const engine = await runEngine(engineConfig, {
      adminAccountFollows: true,
      consoleFreePortIfTaken: consoleByDefault,
    });
    stops.push(() => engine.close());
    // The port it got, so the worker keeps flows away from it (workflows/config.ts, own ports).
    if (engine.console) env.FLOWHOOK_CONSOLE_PORT = String(engine.console.port);
    // Each process its own account and scope; one process's env here, so the tokens are set per process.
    const tokens = await ensureLocalServiceAccounts(engine, config.dataDir, say);
    const engineUrl = config.engineUrl ?? `http://127.0.0.1:${engine.port}`;
    const clientEnv = (token: string) => ({ ...env, FLOWHOOK_ENGINE_URL: engineUrl, ...engineTokenVariables(token) });
    const worker = await runWorker(readWorkerConfig(clientEnv(tokens.worker)));
    stops.push(() => worker.close());
    let stopping = false;
    stops.push(async () => {
      stopping = true;
    });
    // The worker's run ends only when it is stopped — or when it failed (its workflow thread died).
    const failed = worker.done.then(
      () => {
        if (!stopping) throw new Error('the worker stopped on its own');
        return new Promise<never>(() => undefined);
      },
      (error: unknown) => {
        if (stopping) return new Promise<never>(() => undefined);
        throw new Error(`the worker failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    const facadeConfig = readFacadeConfig(clientEnv(tokens.facade));
    const facade = await runFacade(facadeConfig, { handleSignals: false });
    stops.push(() => facade.close());

    const seed = await options.seed(engineUrl, tokens.cli);
    const base = `${facadeConfig.publicUrl}/${facadeConfig.instance}/ODataV4`;
    const webhookUrl = `${base}/flowWebhook_Invoke?company=Default`;
    // Credentials on screen only for a person at a terminal; a log (journald, docker) gets the files' paths.
    const firstRunFiles = seed && writeFirstRunFiles(config.dataDir, seed, webhookUrl, process.stdout.isTTY === true);
    process.stdout.write(
      (options.json ? bannerJson : banner)({
        webhookUrl,
        metadataUrl: `${base}/$metadata`,
        facadeHost: facadeConfig.host,
        engineUrl: `http://${engineConfig.host}:${engine.port}`,
        temporalAddress: engineConfig.temporal.address,
        temporalUiUrl,
        codecUrl: engine.codec?.url,
        consoleUrl: engine.console?.url,
        metricsUrls: {
          facade: facade.metrics && `http://${facade.metrics.host}:${facade.metrics.port}/metrics`,
          engine: engine.metrics && `http://${engine.metrics.host}:${engine.metrics.port}/metrics`,
          worker: worker.metrics && `http://${worker.metrics.host}:${worker.metrics.port}/metrics`,
        },
        dataDir: config.dataDir,
        seed,
        firstRunFiles,
      }),
    );
    return { stop, failed };
  } catch (error) {
    await stop();
    throw error;
  }
}
