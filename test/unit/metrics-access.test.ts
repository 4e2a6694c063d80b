// Who may read /metrics (common/metrics/metrics-access.ts): on a metrics port,
// loopback clients that are not a proxy forwarding someone else, or a holder of
// FLOWHOOK_METRICS_TOKEN; on a public port the token only; and how the metrics
// settings are read.
import test from 'ava';
import { isLoopback, metricsAccess, publicMetricsAccess } from '../../common/metrics/metrics-access.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { createMetricsRegistry } from '../../common/metrics/metrics-registry.ts';
import { startComponentMetrics, startMetricsListener } from '../../common/metrics/metrics-listener.ts';

const TOKEN = 'a-scrape-token-of-32-characters!';

test('loopback clients are let in without a token, in every spelling of loopback', (t) => {
  for (const address of ['127.0.0.1', '127.5.6.7', '::1', '::ffff:127.0.0.1']) {
    t.deepEqual(metricsAccess({ remoteAddress: address, headers: {} }, undefined), { allowed: true }, address);
  }
  t.false(isLoopback('10.0.0.1'));
  t.false(isLoopback('::ffff:10.0.0.1'));
  t.false(isLoopback(undefined));
});

test('without a token, anyone else is refused with 403 naming FLOWHOOK_METRICS_TOKEN', (t) => {
  const refused = metricsAccess({ remoteAddress: '10.1.2.3', headers: {} }, undefined);
  t.is(refused.allowed, false);
  if (refused.allowed) return;
  t.is(refused.status, 403);
  t.regex(refused.message, /FLOWHOOK_METRICS_TOKEN/);
});

test('a loopback client that forwards for someone else (a reverse proxy) is not loopback', (t) => {
  for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
    const access = metricsAccess({ remoteAddress: '127.0.0.1', headers: { [header]: '203.0.113.9' } }, undefined);
    t.like(access, { allowed: false, status: 403 }, header);
  }
});

test('with a token: the right bearer token is let in from anywhere, a wrong or missing one gets 401', (t) => {
  t.deepEqual(metricsAccess({ remoteAddress: '10.1.2.3', headers: { authorization: `Bearer ${TOKEN}` } }, TOKEN), {
    allowed: true,
  });
  t.deepEqual(metricsAccess({ remoteAddress: '10.1.2.3', headers: { authorization: `bearer ${TOKEN}` } }, TOKEN), {
    allowed: true,
  });
  t.like(metricsAccess({ remoteAddress: '10.1.2.3', headers: { authorization: `Bearer ${TOKEN}x` } }, TOKEN), {
    allowed: false,
    status: 401,
  });
  t.like(metricsAccess({ remoteAddress: '10.1.2.3', headers: { authorization: `Basic ${TOKEN}` } }, TOKEN), {
    allowed: false,
    status: 401,
  });
  const missing = metricsAccess({ remoteAddress: '10.1.2.3', headers: {} }, TOKEN);
  t.like(missing, { allowed: false, status: 401 });
  if (!missing.allowed) t.notRegex(missing.message, new RegExp(TOKEN));
  // A bearer token presented where none is configured is refused, even from loopback: the scraper is misconfigured.
  t.like(metricsAccess({ remoteAddress: '127.0.0.1', headers: { authorization: `Bearer ${TOKEN}` } }, undefined), {
    allowed: false,
    status: 401,
  });
});

test('on a public port only the token counts: a loopback peer there may be a proxy that forwards anyone', (t) => {
  t.deepEqual(publicMetricsAccess({ authorization: `Bearer ${TOKEN}` }, TOKEN, 'PORT_VARIABLE'), { allowed: true });
  t.like(publicMetricsAccess({}, TOKEN, 'PORT_VARIABLE'), { allowed: false, status: 401 });
  t.like(publicMetricsAccess({ authorization: `Bearer ${TOKEN}x` }, TOKEN, 'PORT_VARIABLE'), {
    allowed: false,
    status: 401,
  });
  const untokened = publicMetricsAccess({}, undefined, 'PORT_VARIABLE');
  t.like(untokened, { allowed: false, status: 403 });
  if (!untokened.allowed) t.regex(untokened.message, /metrics port \(PORT_VARIABLE\).*FLOWHOOK_METRICS_TOKEN/);
});

test('metrics settings: a port, 0, or off; a token of at least 16 characters', (t) => {
  const engine = (env: Record<string, string>) =>
    readEngineConfig({ FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', ...env });
  t.deepEqual(engine({}).metrics, { host: '127.0.0.1', port: 7051 });
  t.deepEqual(engine({ FLOWHOOK_ENGINE_METRICS_PORT: '0', FLOWHOOK_METRICS_HOST: '0.0.0.0' }).metrics, {
    host: '0.0.0.0',
    port: 0,
  });
  t.is(engine({ FLOWHOOK_ENGINE_METRICS_PORT: 'off' }).metrics, undefined);
  t.throws(() => engine({ FLOWHOOK_ENGINE_METRICS_PORT: '70000' }), {
    message: /FLOWHOOK_ENGINE_METRICS_PORT must be a port number/,
  });
  t.throws(() => engine({ FLOWHOOK_ENGINE_METRICS_PORT: 'yes' }), {
    message: /FLOWHOOK_ENGINE_METRICS_PORT must be a port number \(0\.\.65535\) or off/,
  });
  t.is(engine({}).metricsToken, undefined);
  t.is(engine({ FLOWHOOK_METRICS_TOKEN: TOKEN }).metricsToken, TOKEN);
  const short = t.throws(() => engine({ FLOWHOOK_METRICS_TOKEN: 'short' }));
  t.regex(short!.message, /FLOWHOOK_METRICS_TOKEN must have at least 16 characters/);
  t.false(short!.message.includes('short'), 'a secret is never quoted');
});

test('process metrics go to one registry per process, and pass on when it closes', (t) => {
  const first = createMetricsRegistry();
  const second = createMetricsRegistry();
  try {
    // This file creates no other registry, so the first one here is the process's first.
    t.true(first.processMetrics);
    t.false(second.processMetrics);
    first.close();
    const third = createMetricsRegistry();
    t.true(third.processMetrics);
    third.close();
  } finally {
    first.close();
    second.close();
  }
});

test('over HTTP without a token: loopback reads, a proxied request gets 403, probes answer anyone, other paths 404', async (t) => {
  const listener = await startMetricsListener({
    host: '127.0.0.1',
    port: 0,
    token: undefined,
    metrics: async () => 'flowhook_example_total 1\n',
    probes: { '/readyz': () => ({ status: 503, body: { status: 'not ready' } }) },
  });
  try {
    const url = (path: string) => `http://127.0.0.1:${listener.port}${path}`;
    const direct = await fetch(url('/metrics'));
    t.is(direct.status, 200);
    t.regex(direct.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    t.is(await direct.text(), 'flowhook_example_total 1\n');
    const proxied = await fetch(url('/metrics'), { headers: { 'x-forwarded-for': '203.0.113.9' } });
    t.is(proxied.status, 403);
    t.regex(await proxied.text(), /FLOWHOOK_METRICS_TOKEN/);
    const probe = await fetch(url('/readyz'), { headers: { 'x-forwarded-for': '203.0.113.9' } });
    t.is(probe.status, 503);
    t.deepEqual(await probe.json(), { status: 'not ready' });
    t.is((await fetch(url('/other'))).status, 404);
    t.is((await fetch(url('/metrics'), { method: 'POST' })).status, 405);
  } finally {
    await listener.close();
  }
});

test("a component's metrics: none while its port is off; a taken port stops the component and names the port's variable", async (t) => {
  const serve = { metrics: async () => '', undo: () => Promise.reject(new Error('not stopped')) };
  t.is(await startComponentMetrics('facade', { metricsToken: TOKEN }, serve), undefined);
  const logged: string[] = [];
  const logger = {
    info: (_: object, message: string) => void logged.push(message),
    warn: (_: object, message: string) => void logged.push(message),
  };
  const first = await startComponentMetrics(
    'worker',
    { metrics: { host: '127.0.0.1', port: 0 }, metricsToken: TOKEN },
    { ...serve, logger },
  );
  try {
    t.deepEqual(first?.address, { host: '127.0.0.1', port: first?.port });
    t.deepEqual(logged, ['worker metrics listening']);
    let stopped = false;
    const taken = { host: '127.0.0.1', port: first!.port };
    const error = await t.throwsAsync(
      startComponentMetrics('engine', { metrics: taken }, { ...serve, undo: async () => void (stopped = true) }),
    );
    t.regex(
      error!.message,
      new RegExp(
        `^the engine's metrics port 127\\.0\\.0\\.1:${taken.port} \\(FLOWHOOK_ENGINE_METRICS_PORT\\): .*EADDRINUSE`,
      ),
    );
    t.true(stopped);
  } finally {
    await first?.close();
  }
});
