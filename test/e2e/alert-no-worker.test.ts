// no-worker alerts, which the engines watch themselves (no workflow could run
// without a worker): with no worker polling the task queue the rule fires once,
// and once a worker polls it resolves once. Two engines' rounds at the same
// moment do the work once: a round holds a PostgreSQL advisory lock, taken with
// try, and the rule's row carries its state from one round to the next.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createClient } from '@connectrpc/connect';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { AlertCondition, AlertService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { kindSettingsOf } from '../../flow/connection-kinds/connection-settings.ts';
import { readWorkerConfig } from '../../workflows/config.ts';
import { runWorker, type RunningWorker } from '../../workflows/main.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { alertParts } from '../../engine/domain/alerts/alert-deps.ts';
import { watchOnce, type NoWorkerWatchOptions } from '../../engine/domain/alerts/no-worker-watch.ts';
import { SecretKeyring } from '../../engine/infrastructure/secret-store/secret-keyring.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { createTenant } from '../support/webhook-helpers.ts';
import { eventually } from '../support/eventually.ts';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: TestStack;
let sink: RouteServer;
let worker: RunningWorker | undefined;

test.before(async () => {
  sink = await startRouteServer();
  sink.route('/alerts', (_request, response) => void response.writeHead(204).end());
  // A long interval: the engine's own watch stays out of the way of the rounds this test runs.
  stack = await startStack({ withoutWorker: true, env: { FLOWHOOK_ALERT_EVALUATION_INTERVAL: '1h' } });
});
test.after.always(async () => {
  await worker?.close();
  await stack?.close();
  await sink?.close();
});

test('no worker: fires once (one engine of two does the round), resolves once when a worker polls', async (t) => {
  const tenant = await createTenant(stack, 'Watch Co');
  await stack.admin.setConnection({
    company: tenant.company,
    name: 'ops-hook',
    settings: { type: ConnectionType.WEBHOOK, baseUrl: `${sink.url}/alerts`, allowedHosts: [], ...kindSettingsOf({}) },
    secret: SECRET,
  });
  const alerts = createClient(
    AlertService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  );
  await alerts.setAlert({
    rule: { company: tenant.company, name: 'workers', condition: AlertCondition.NO_WORKER, connection: 'ops-hook' },
  });
  // What the engine's own watch runs with, for rounds the test starts itself.
  const config = readEngineConfig(stack.env);
  const options: NoWorkerWatchOptions = {
    orm: stack.engine.orm,
    logger: pino({ level: 'silent' }),
    ...alertParts({
      orm: stack.engine.orm,
      temporal: stack.engine.client,
      taskQueue: stack.taskQueue,
      keyring: new SecretKeyring(config.secretsKeys),
      alerts: { ...config.alerts, namespace: config.temporal.namespace, consoleUrl: () => undefined },
    }),
    intervalMs: 1000,
  };
  const messages = () => sink.seen.filter((seen) => seen.path === '/alerts');

  // Two engines' rounds at once: one takes the lock and does the work, the other skips.
  const rounds = await Promise.all([watchOnce(options), watchOnce(options)]);
  t.deepEqual([...rounds].sort(), [false, true]);
  t.is(messages().length, 1);
  const firing = new Webhook(SECRET).verify(messages()[0]!.body, messages()[0]!.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
  t.is(firing.type, 'alert.firing');
  t.like(firing.data, { condition: 'no-worker', alert: 'workers', incident: 1 });
  t.regex(String(firing.data.title), new RegExp(`^Firing: no worker has polled task queue ${stack.taskQueue} for 5m$`));

  // Still no worker: nothing new.
  t.true(await watchOnce(options));
  t.is(messages().length, 1);
  t.like((await alerts.getAlert({ company: tenant.company, name: 'workers' })).alert, { incidents: 1 });

  worker = await runWorker(
    readWorkerConfig({
      ...stack.env,
      FLOWHOOK_ENGINE_URL: stack.engineUrl,
      FLOWHOOK_ENGINE_TOKEN: stack.tokens.worker,
    }),
  );
  await eventually(
    async () => {
      await watchOnce(options);
      return messages().length;
    },
    { until: (count) => count >= 2, timeoutMs: 60_000, what: 'the resolved message once the worker polls' },
  );
  t.is(messages().length, 2);
  const resolved = new Webhook(SECRET).verify(
    messages()[1]!.body,
    messages()[1]!.headers as Record<string, string>,
  ) as {
    type: string;
    data: Record<string, unknown>;
  };
  t.is(resolved.type, 'alert.resolved');
  t.regex(String(resolved.data.text), /a worker polls the task queue again/);
  t.true(await watchOnce(options));
  t.is(messages().length, 2);
});
