// Prometheus metrics (issue 13): the facade's, engine's and worker's /metrics
// are scraped before and after real calls (answered, refused at each stage,
// rate limited) and the series that must move are checked, as are the labels
// that must never appear (names an outsider chose). Then who may scrape
// (loopback on a metrics port, or the bearer token; a proxied client is
// refused; the facade's public port only with the token) and the worker's
// readiness, which turns 503 when its engine goes away.
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { runFacade } from '../../facade/main.ts';
import { readWorkerConfig } from '../../workflows/config.ts';
import { runWorker, type RunningWorker } from '../../workflows/main.ts';
import { eventually } from '../support/eventually.ts';
import { scrape, sample } from '../support/metrics-samples.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, webhookUrl, type Tenant } from '../support/webhook-helpers.ts';

const METRICS_TOKEN = randomBytes(24).toString('base64url');
const MAX_BODY_BYTES = 8192;

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack({
    env: {
      FLOWHOOK_METRICS_TOKEN: METRICS_TOKEN,
      FLOWHOOK_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
      // metrics.limited gets three calls a burst; no other activity here is called that often at once.
      FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: '1',
      FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: '3',
    },
  });
  tenant = await createTenant(stack, 'Metrics Co');
  target = await startTargetServer((request) => ({
    status: request.path.startsWith('/teapot') ? 418 : 200,
    body: '{"ok":true}',
    contentType: 'application/json',
  }));
  const deploy = async (activity: string, webhook: Record<string, unknown>, steps: unknown[]) => {
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), { activity, ...webhook }, steps))
    ).secret;
  };
  await deploy('metrics.instant', {}, [{ set: { variables: { seen: '${Trigger.Payload.n}' } } }]);
  await deploy('metrics.sync', { responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
    { httpRequest: { description: 'ask the teapot', method: 'GET', url: `${target.url}/teapot` } },
    { respond: { statusCode: 201, body: 'made' } },
  ]);
  await deploy('metrics.limited', {}, []);
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

const facadeMetricsUrl = () => stack.facadeMetricsUrl!;
const engineMetricsUrl = () => `http://127.0.0.1:${stack.engine.metrics!.port}/metrics`;
const workerUrl = (worker: RunningWorker | undefined, path: string) =>
  `http://127.0.0.1:${worker!.metrics!.port}${path}`;

function moved(
  t: ExecutionContext,
  before: string,
  after: string,
  name: string,
  labels: Record<string, string>,
  by: number,
): void {
  t.is(sample(after, name, labels) - sample(before, name, labels), by, `${name}${JSON.stringify(labels)}`);
}

/** Polls a scrape until `ready` holds on it (the worker reports steps when the execution runs, after the call). */
async function scrapeUntil(url: string, ready: (text: string) => boolean): Promise<string> {
  return eventually(() => scrape(url), { until: ready, intervalMs: 200, what: `the awaited samples in ${url}` });
}

const call = (activity: string, overrides: Partial<Parameters<typeof callWebhook>[1]> = {}) =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity] ?? 'no-such-secret',
    auth: tenant.auth,
    payloadText: '{"n": 1}',
    ...overrides,
  });

test.serial('facade, engine and worker metrics move with answered, refused and rate-limited calls', async (t) => {
  const company = tenant.company;
  const [facadeBefore, engineBefore, workerBefore] = [
    await scrape(facadeMetricsUrl()),
    await scrape(engineMetricsUrl()),
    await scrape(workerUrl(stack.worker, '/metrics')),
  ];

  t.is((await call('metrics.sync')).status, 200);
  t.is((await call('metrics.instant')).status, 200);
  t.is((await call('metrics.instant', { secret: 'wrong-secret-wrong-secret-123456' })).status, 401);
  t.is((await call('metrics.instant', { auth: undefined })).status, 401);
  // Names an outsider chose: refused, and never a label.
  // A company the caller holds no set in is refused before any lookup (docs/explanation/security.md, "Tenants a caller has no grant in").
  t.is((await call('attacker.chosen.activity', { company: 'EvilCo' })).status, 401);
  t.is((await call('attacker.chosen.other')).status, 404);
  t.is((await call('metrics.instant', { payloadText: `{"pad": "${'x'.repeat(MAX_BODY_BYTES)}"}` })).status, 413);
  t.is(
    (
      await fetch(webhookUrl(stack, company), {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: tenant.auth },
        body: 'hi',
      })
    ).status,
    415,
  );
  // At once, so the bucket (burst 3, 1 a second) cannot refill in between.
  const limited = await Promise.all(Array.from({ length: 5 }, () => call('metrics.limited')));
  t.deepEqual(limited.map((answer) => answer.status).sort(), [200, 200, 200, 429, 429]);

  const facade = await scrape(facadeMetricsUrl());
  const calls = 'flowhook_facade_webhook_calls_total';
  moved(
    t,
    facadeBefore,
    facade,
    calls,
    { company, activity: 'metrics.sync', mode: 'sync', outcome: 'responded', status: '200' },
    1,
  );
  moved(
    t,
    facadeBefore,
    facade,
    calls,
    { company, activity: 'metrics.instant', mode: 'instant', outcome: 'instant_return', status: '200' },
    1,
  );
  moved(
    t,
    facadeBefore,
    facade,
    calls,
    { company, activity: 'metrics.limited', mode: 'instant', outcome: 'instant_return', status: '200' },
    3,
  );
  const refused = (status: string) => ({
    company: 'unknown',
    activity: 'unknown',
    mode: 'unknown',
    outcome: 'refused',
    status,
  });
  moved(t, facadeBefore, facade, calls, refused('401'), 3);
  moved(t, facadeBefore, facade, calls, refused('404'), 1);
  moved(t, facadeBefore, facade, calls, refused('413'), 1);
  moved(t, facadeBefore, facade, calls, refused('415'), 1);
  moved(t, facadeBefore, facade, calls, refused('429'), 2);
  moved(
    t,
    facadeBefore,
    facade,
    'flowhook_facade_webhook_call_duration_seconds_count',
    { mode: 'sync', outcome: 'responded' },
    1,
  );
  moved(t, facadeBefore, facade, 'flowhook_facade_http_requests_total', { route: 'webhook', status: '404' }, 1);

  const engine = await scrape(engineMetricsUrl());
  const engineCalls = 'flowhook_engine_webhook_calls_total';
  moved(
    t,
    engineBefore,
    engine,
    engineCalls,
    { company, activity: 'metrics.sync', mode: 'sync', outcome: 'responded', code: 'ok' },
    1,
  );
  // A wrong secret is refused after the lookup: it is counted per flow.
  moved(
    t,
    engineBefore,
    engine,
    engineCalls,
    { company, activity: 'metrics.instant', mode: 'instant', outcome: 'refused', code: 'unauthenticated' },
    1,
  );
  moved(
    t,
    engineBefore,
    engine,
    engineCalls,
    { company: 'unknown', activity: 'unknown', mode: 'unknown', outcome: 'refused', code: 'not_found' },
    1,
  );
  moved(
    t,
    engineBefore,
    engine,
    engineCalls,
    { company, activity: 'metrics.limited', mode: 'instant', outcome: 'refused', code: 'resource_exhausted' },
    2,
  );
  moved(t, engineBefore, engine, 'flowhook_engine_rate_limited_total', { limit: 'activity' }, 2);
  moved(t, engineBefore, engine, 'flowhook_engine_sync_wait_seconds_count', { outcome: 'responded' }, 1);
  moved(t, engineBefore, engine, 'flowhook_engine_temporal_start_duration_seconds_count', { mode: 'sync' }, 1);
  moved(t, engineBefore, engine, 'flowhook_engine_temporal_start_duration_seconds_count', { mode: 'instant' }, 4);
  t.true(
    sample(engine, 'flowhook_engine_cache_lookups_total', { cache: 'flows', result: 'hit' }) >
      sample(engineBefore, 'flowhook_engine_cache_lookups_total', { cache: 'flows', result: 'hit' }),
  );
  t.is(sample(engine, 'flowhook_engine_sync_calls_waiting'), 0);

  for (const text of [facade, engine]) {
    t.notRegex(text, /attacker|EvilCo|wrong-secret/);
  }

  // The instant executions run after their calls were answered: wait for their steps.
  const worker = await scrapeUntil(
    workerUrl(stack.worker, '/metrics'),
    (text) =>
      sample(text, 'flowhook_worker_steps_total', { kind: 'set', result: 'completed' }) -
        sample(workerBefore, 'flowhook_worker_steps_total', { kind: 'set', result: 'completed' }) >=
      1,
  );
  moved(t, workerBefore, worker, 'flowhook_worker_steps_total', { kind: 'set', result: 'completed' }, 1);
  moved(t, workerBefore, worker, 'flowhook_worker_steps_total', { kind: 'httpRequest', result: 'completed' }, 1);
  moved(t, workerBefore, worker, 'flowhook_worker_steps_total', { kind: 'respond', result: 'completed' }, 1);
  moved(t, workerBefore, worker, 'flowhook_worker_step_duration_seconds_count', { kind: 'httpRequest' }, 1);
  moved(t, workerBefore, worker, 'flowhook_worker_outbound_requests_total', { status: '418' }, 1);
  // The Temporal SDK's own metrics, from the Runtime's Prometheus exporter, in the same scrape.
  t.regex(worker, /^temporal_[a-z_]+(\{[^}]*task_queue="[^"]+"[^}]*\})? \d/m);
  // The Node.js process metrics once per process, though three components (and their registries) share it.
  t.is([facade, engine, worker].filter((text) => /^process_cpu_user_seconds_total /m.test(text)).length, 1);
});

test.serial(
  'who may scrape: loopback, or the bearer token; a proxied client and a wrong token are refused',
  async (t) => {
    for (const url of [facadeMetricsUrl(), engineMetricsUrl(), workerUrl(stack.worker, '/metrics')]) {
      const proxied = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      t.is(proxied.status, 401, url);
      t.regex(await proxied.text(), /FLOWHOOK_METRICS_TOKEN/);
      t.is(proxied.headers.get('www-authenticate'), 'Bearer realm="flowhook metrics"');
      const wrong = await fetch(url, {
        headers: { authorization: 'Bearer not-the-token-at-all', 'x-forwarded-for': '203.0.113.9' },
      });
      t.is(wrong.status, 401, url);
      t.notRegex(await wrong.text(), new RegExp(METRICS_TOKEN));
      const text = await scrape(url, { authorization: `Bearer ${METRICS_TOKEN}`, 'x-forwarded-for': '203.0.113.9' });
      t.regex(text, /^flowhook_/m);
    }
  },
);

test.serial(
  "the facade's public port answers /metrics only with the token: a loopback client there may be anyone a proxy forwards",
  async (t) => {
    // What a reverse proxy or sidecar on the same host sends for a caller on the internet: loopback, no forwarding header.
    const plain = await fetch(`${stack.facadeUrl}/metrics`);
    t.is(plain.status, 401);
    t.notRegex(await plain.text(), /flowhook_facade/);
    t.regex(
      await scrape(`${stack.facadeUrl}/metrics`, { authorization: `Bearer ${METRICS_TOKEN}` }),
      /^flowhook_facade_http_requests_total/m,
    );
    t.regex(
      await scrape(facadeMetricsUrl()),
      /^flowhook_facade_http_requests_total/m,
      'the metrics port serves loopback scrapers',
    );

    // Without a token configured, the public port serves no one and says where metrics are.
    const { FLOWHOOK_METRICS_TOKEN: _token, ...withoutToken } = stack.env;
    const facade = await runFacade(
      readFacadeConfig({
        ...withoutToken,
        FLOWHOOK_ENGINE_URL: stack.engineUrl,
        FLOWHOOK_ENGINE_TOKEN: stack.tokens.facade,
      }),
      { handleSignals: false },
    );
    try {
      const refused = await fetch(`http://127.0.0.1:${facade.port}/metrics`);
      t.is(refused.status, 403);
      t.regex(
        await refused.text(),
        /on the metrics port \(FLOWHOOK_FACADE_METRICS_PORT\); on this port only with Authorization: Bearer <FLOWHOOK_METRICS_TOKEN>/,
      );
      t.regex(
        await scrape(`http://127.0.0.1:${facade.metrics!.port}/metrics`),
        /^# TYPE flowhook_facade_http_requests_total counter$/m,
      );
    } finally {
      await facade.close();
    }
  },
);

test.serial(
  'the worker is ready while it polls and reaches Temporal and its engine; 503 naming the engine when it goes away',
  async (t) => {
    const alive = await fetch(workerUrl(stack.worker, '/healthz'));
    t.is(alive.status, 200);
    const ready = await fetch(workerUrl(stack.worker, '/readyz'));
    t.is(ready.status, 200);
    t.deepEqual(await ready.json(), { status: 'ready', checks: { worker: 'ok', temporal: 'ok', engine: 'ok' } });

    // A second engine and a worker of its own, so this stack's engine stays up.
    let engine: RunningEngine | undefined = await runEngine(
      readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0' }),
    );
    let worker: RunningWorker | undefined;
    try {
      worker = await runWorker(
        readWorkerConfig({
          ...stack.env,
          FLOWHOOK_TASK_QUEUE: `${stack.taskQueue}-second`,
          FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${engine.port}`,
          FLOWHOOK_ENGINE_TOKEN: stack.tokens.worker,
        }),
      );
      const readiness = await eventually(() => fetch(workerUrl(worker, '/readyz')), {
        until: (response) => response.status === 200,
        intervalMs: 200,
        what: 'the second worker ready',
        show: (response) => `${response.status}`,
      });
      t.is(readiness.status, 200, JSON.stringify(await readiness.clone().json()));
      t.regex(await scrape(workerUrl(worker, '/metrics')), /^flowhook_worker_ready 1$/m);

      await engine.close();
      engine = undefined;
      const down = await fetch(workerUrl(worker, '/readyz'));
      t.is(down.status, 503);
      t.deepEqual(await down.json(), {
        status: 'not ready',
        checks: { worker: 'ok', temporal: 'ok', engine: 'unreachable' },
      });
      t.regex(await scrape(workerUrl(worker, '/metrics')), /^flowhook_worker_ready 0$/m);
    } finally {
      await worker?.close();
      await engine?.close();
    }
  },
);
