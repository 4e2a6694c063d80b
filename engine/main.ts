// The engine process: reads configuration, opens PostgreSQL (migrating it),
// connects to Temporal, serves RPCs. Returns a handle that stops it cleanly.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { startChangeFeed, type ChangeAnnouncer } from './infrastructure/cache/change-feed.ts';
import { createServiceAccountDirectory } from './domain/callers/service-account-directory.ts';
import { engineProbes, startDependencyProbes } from './infrastructure/health/dependency-probes.ts';
import { loadDeploymentKey } from './domain/callers/deployment-keys.ts';
import { readEngineConfig, type EngineConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { createEngine } from './server.ts';
import { openOrm } from './infrastructure/storage/orm.ts';
import { createExecutionStarter } from './domain/executions/execution-starter.ts';
import { createCallCollector } from './domain/flow-control/call-collector.ts';
import { createGateEntry } from './domain/flow-control/gate-entry.ts';
import { ensureSearchAttributes } from './infrastructure/temporal/search-attributes.ts';
import { createCallAbandonment } from './infrastructure/temporal/call-abandonment.ts';
import { connectTemporal } from './infrastructure/temporal/temporal-client.ts';
import { createWebhookLimits } from './domain/limits/webhook-limits.ts';
import { startEngineMembership } from './domain/limits/engine-membership.ts';
import { executionRunState } from './domain/executions/execution-still-runs.ts';
import { createExecutionLiveness } from './domain/executions/execution-liveness.ts';
import { createCallerDirectory } from './domain/callers/caller-directory.ts';
import { createPublishedFlowLookup } from './domain/flows/published-flow-lookup.ts';
import { createHookSecretLookup } from './domain/direct/hook-secret-lookup.ts';
import { createDeliveryMemory } from './domain/direct/delivery-memory.ts';
import { ensureRetentionSchedule } from './domain/retention/retention-schedule.ts';
import { SecretKeyring } from './infrastructure/secret-store/secret-keyring.ts';
import { ServiceAccount } from './infrastructure/storage/entities.ts';
import { startCodecServer, type RunningCodecServer } from './edges/codec/codec-server.ts';
import { startConsoleServer, type RunningConsoleServer } from './edges/console/console-server.ts';
import { startTracing } from '../common/tracing/tracing.ts';
import { createEngineMetrics } from './domain/metrics/engine-metrics.ts';
import { startCallMinutes } from './domain/metrics/call-minutes.ts';
import { meteredLimits, meteredStarter } from './domain/metrics/metered-webhook.ts';
import { startComponentMetrics, type MetricsListener } from '../common/metrics/metrics-listener.ts';
import { startNoWorkerWatch } from './domain/alerts/no-worker-watch.ts';
import { alertParts } from './domain/alerts/alert-deps.ts';

export interface RunningEngine {
  port: number;
  orm: MikroORM;
  client: Client;
  /** For whoever writes what the caches hold next to the engine (flowhook start's service accounts). */
  changes: ChangeAnnouncer;
  /** The codec server for the Temporal UI, when FLOWHOOK_CODEC_PORT runs one. */
  codec?: { port: number; url: string };
  /** The web console, when FLOWHOOK_CONSOLE_PORT runs one. */
  console?: { port: number; url: string };
  /** Where GET /metrics answers (FLOWHOOK_ENGINE_METRICS_PORT), unless it is off. */
  metrics?: { host: string; port: number };
  /** Engines sharing the cluster-wide limits by this one's last heartbeat (this one included). */
  liveEngines(): number;
  close(): Promise<void>;
}

export interface RunEngineOptions {
  /** `flowhook start` makes the admin account itself right after the engine is up: no warning then. */
  adminAccountFollows?: boolean;
  /** `flowhook start`'s default console port: taken (another start runs), the console takes a free one. */
  consoleFreePortIfTaken?: boolean;
}

export async function runEngine(
  config: EngineConfig = readEngineConfig(),
  options: RunEngineOptions = {},
): Promise<RunningEngine> {
  const logger = createLogger('engine', config.logLevel);
  // Read before anything starts: a malformed key stops the engine with a message naming its source.
  const keyring = new SecretKeyring(config.secretsKeys);
  if (!keyring.configured)
    logger.warn(
      'no secret store key (FLOWHOOK_SECRETS_KEY or FLOWHOOK_SECRETS_KEY_FILE): connections cannot be stored or used',
    );
  const orm = await openOrm({ databaseUrl: config.databaseUrl, connectTimeoutMs: config.databaseTimeoutMs });
  const abandonment = createCallAbandonment();
  const tracing = await startTracing(config.tracing);
  const client = await connectTemporal(
    config.temporal,
    config.temporalTimeoutMs,
    abandonment,
    config.payloadKeys,
    tracing,
  );
  let searchAttributes = false;
  try {
    searchAttributes = await ensureSearchAttributes(client, config.temporal.namespace);
  } catch (error) {
    logger.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'search attributes unavailable; executions start without them',
    );
  }
  const changeFeed = startChangeFeed(config.databaseUrl, logger, {
    heartbeatIntervalMs: config.changeFeed.heartbeatIntervalMs,
  });
  const metrics = createEngineMetrics();
  const callMinutes = await startCallMinutes(metrics.registry.registry);
  const cacheOptions = { maxAgeMs: config.changeFeed.maxAgeMs, observeLookups: metrics.cacheLookups };
  const grantKey = await loadDeploymentKey(orm.em.fork(), 'execution-grant');
  const idempotencyKey = await loadDeploymentKey(orm.em.fork(), 'idempotency');
  const callbackKeys = {
    lookup: await loadDeploymentKey(orm.em.fork(), 'callback-key'),
    body: await loadDeploymentKey(orm.em.fork(), 'callback-body'),
  };
  // Each engine applies 1/N of every limit with N live engines: no call waits for the database.
  const limits = createWebhookLimits(config.limits);
  const membership = await startEngineMembership({
    orm,
    logger,
    onLiveNodes: (count) => {
      limits.setLiveNodes(count);
      metrics.liveEngines(count);
    },
  });
  const probes = startDependencyProbes(orm, client, logger, {
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueue,
    onCount: metrics.workerPollers,
  });
  // Rows past their retention are deleted by one Temporal Schedule for the deployment, not by each
  // engine (engine/domain/retention/retention-schedule.ts says why); every engine makes sure it exists.
  try {
    const ensured = await ensureRetentionSchedule(client, {
      taskQueue: config.taskQueue,
      intervalMs: config.retention.intervalMs,
    });
    if (ensured !== 'unchanged')
      logger.info({ intervalMs: config.retention.intervalMs }, `retention schedule ${ensured}`);
  } catch (error) {
    logger.warn(
      { reason: error instanceof Error ? error.message : String(error) },
      'the retention schedule could not be created or updated; nothing is purged until an engine starts that can',
    );
  }
  // Alert messages link to the console: its public URL, or its own address once it listens (set below).
  let consoleUrl: string | undefined = config.console?.publicUrl;
  const alerts = { ...config.alerts, namespace: config.temporal.namespace, consoleUrl: () => consoleUrl };
  // no-worker rules cannot run on the worker they watch: the engines watch them, one at a time.
  const noWorkerWatch = startNoWorkerWatch({
    orm,
    logger,
    ...alertParts({ orm, temporal: client, taskQueue: config.taskQueue, keyring, alerts }),
    intervalMs: config.alerts.evaluationIntervalMs,
  });
  // One directory for RPC callers and codec operators: one cache, invalidated by one feed.
  const accounts = createServiceAccountDirectory(orm, changeFeed, config.adminToken, cacheOptions);
  const engine = createEngine({
    orm,
    publishedFlows: createPublishedFlowLookup(changeFeed, cacheOptions),
    callers: createCallerDirectory(changeFeed, cacheOptions),
    hookSecrets: createHookSecretLookup(changeFeed, keyring, { ...cacheOptions, name: 'hook_secrets' }),
    deliveries: createDeliveryMemory(config.hookReplayWindowMs),
    limits: meteredLimits(limits, metrics),
    changes: changeFeed,
    logger,
    starter: meteredStarter(
      createExecutionStarter({
        client,
        abandonment,
        taskQueue: config.taskQueue,
        temporalTimeoutMs: config.temporalTimeoutMs,
        syncGraceMs: config.syncGraceMs,
        onStartAcknowledged: metrics.startAcknowledged,
        gates: createGateEntry({
          client,
          taskQueue: config.taskQueue,
          temporalTimeoutMs: config.temporalTimeoutMs,
          maxWaiting: config.flowControlMaxWaiting,
          logger,
          liveEngines: () => limits.liveNodes,
        }),
      }),
      metrics,
    ),
    collector: createCallCollector({
      client,
      taskQueue: config.taskQueue,
      temporalTimeoutMs: config.temporalTimeoutMs,
    }),
    temporal: client,
    taskQueue: config.taskQueue,
    accounts,
    grantKey,
    liveness: createExecutionLiveness({
      ask: (executionId) => executionRunState(client, executionId),
      observeLookup: metrics.cacheLookups('execution_liveness'),
    }),
    idempotencyKey,
    callbackKeys,
    maxMessageBytes: config.maxMessageBytes,
    tls: config.tls,
    dependencyStatus: probes.status,
    publicUrl: config.publicUrl,
    instance: config.instance,
    useSearchAttributes: () => searchAttributes,
    keyring,
    flowLimits: config.flowLimits,
    records: config.records,
    rerunsPerSecond: config.rerunsPerSecond,
    tracer: tracing?.tracer('engine'),
    metrics,
    callMinutes,
    temporalUiUrl: config.temporalUiUrl,
    deliveryBound: config.deliveryBound,
    retention: config.retention,
    alerts,
  });
  // An engine nobody can administer is a setup mistake worth saying out loud.
  if (
    !options.adminAccountFollows &&
    config.adminToken === undefined &&
    (await orm.em.fork().count(ServiceAccount, { scope: 'admin', enabled: true })) === 0
  ) {
    logger.warn(
      'no admin access: no enabled admin service account and no FLOWHOOK_ADMIN_TOKEN; start the engine once with FLOWHOOK_ADMIN_TOKEN and run: flowhook service-account create <name> --scope admin',
    );
  }
  const port = await engine.listen(config.port, config.host);
  logger.info(
    { host: config.host, port, tls: config.tls ? (config.tls.clientCa ? 'mutual' : 'server') : 'off' },
    'engine listening',
  );
  let codec: RunningCodecServer | undefined;
  let consoleServer: RunningConsoleServer | undefined;
  let metricsListener: MetricsListener | undefined;
  const running: RunningEngine = {
    port,
    orm,
    client,
    changes: changeFeed,
    liveEngines: () => membership.liveNodes(),
    async close() {
      // First: the other engines take this one's share at their next heartbeat, while it drains.
      await membership.close();
      await metricsListener?.close();
      callMinutes.close();
      metrics.registry.close();
      await codec?.close();
      await consoleServer?.close();
      await probes.close();
      await noWorkerWatch.close();
      await engine.close();
      await changeFeed.close();
      // The SDK's longest retry backoff is 5 s.
      await abandonment.settled(6000);
      await client.connection.close();
      await orm.close(true);
      await tracing?.flush();
    },
  };
  if (config.codec) {
    try {
      codec = await startCodecServer({ config: config.codec, payloadKeys: config.payloadKeys!, accounts, logger });
    } catch (error) {
      await running.close();
      throw error;
    }
    running.codec = { port: codec.port, url: codec.url };
  }
  if (config.console) {
    try {
      const csrfKey = await loadDeploymentKey(orm.em.fork(), 'console-csrf');
      const credentialKey = await loadDeploymentKey(orm.em.fork(), 'console-session');
      consoleServer = await startConsoleServer({
        config: config.console,
        services: engine.consoleServices,
        accounts,
        orm,
        csrfKey,
        credentialKey,
        keyring,
        liveEngines: () => membership.liveNodes(),
        signInRefused: metrics.consoleSignInRefused,
        maxMessageBytes: config.maxMessageBytes,
        logger,
        freePortIfTaken: options.consoleFreePortIfTaken,
      });
    } catch (error) {
      await running.close();
      throw error;
    }
    running.console = { port: consoleServer.port, url: consoleServer.url };
    consoleUrl ??= consoleServer.url;
  }
  if (config.metrics) {
    metricsListener = await startComponentMetrics('engine', config, {
      metrics: () => metrics.registry.text(),
      // The same answers as the gRPC health service (and the facade's /readyz), for probes that speak HTTP.
      probes: engineProbes(probes.status),
      logger,
      undo: () => running.close(),
    });
    running.metrics = metricsListener?.address;
  }
  return running;
}
