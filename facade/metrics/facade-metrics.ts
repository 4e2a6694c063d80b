// The facade's Prometheus metrics, and GET /metrics on its public port. Scrapers
// read them on the facade's metrics port (FLOWHOOK_FACADE_METRICS_PORT, served by
// main.ts like the engine's and worker's); the public port answers /metrics only
// with the bearer token, never on a loopback address alone: a reverse proxy or
// sidecar on the same host connects from loopback for every caller on the
// internet. The middleware is the outermost one, so it sees every request with
// the status the error mapping (error-mapping.ts, the one place statuses are
// decided) gave it, refusals included. A webhook call is labelled with its
// company and activity only when the engine answered it: then the pair named a
// published flow (companies match exactly, activities lowercase). Refused calls
// carry `unknown`, so nothing a caller writes into a query or body becomes a
// label; the engine's flowhook_engine_webhook_calls_total has refusals after
// the flow lookup per flow.
import { MAX_FLOW_SERIES, modeOf, webhookCallSeries, type CallOutcome } from '../../common/metrics/call-labels.ts';
import { BoundedPairs, statusLabel, UNKNOWN } from '../../common/metrics/label-values.ts';
import { publicMetricsAccess } from '../../common/metrics/metrics-access.ts';
import {
  createMetricsRegistry,
  METRICS_CONTENT_TYPE,
  type MetricsRegistry,
} from '../../common/metrics/metrics-registry.ts';
import type { FacadeContext, FacadeMiddleware } from '../facade-context.ts';
import { OUTCOME_HEADER } from '../invoke-route.ts';

export interface FacadeMetrics {
  registry: MetricsRegistry;
  /** First middleware: answers GET /metrics (token only) and measures everything else. */
  middleware: FacadeMiddleware;
}

const ROUTES = [
  ['webhook', /^\/[^/]+\/odatav4\/flowwebhook_invoke\/?$/i],
  // The late-answer function: one label, whatever execution id the path names.
  ['answer', /^\/[^/]+\/odatav4\/flowwebhook_answer\(.*\)\/?$/i],
  // The provider route: one label for every company and activity (they are caller-written until verified).
  ['hooks', /^\/[^/]+\/hooks\/[^/]+\/[^/]+\/?$/i],
  // Callback URLs: one label, never the token.
  ['callbacks', /^\/[^/]+\/callbacks\/[^/]+\/?$/i],
  ['resume', /^\/[^/]+\/odatav4\/flowwebhook_resume\/?$/i],
  ['metadata', /^\/[^/]+\/odatav4\/\$metadata\/?$/i],
  ['healthz', /^\/healthz$/],
  ['readyz', /^\/readyz$/],
] as const;

// The outcome header's values (invoke-route.ts) in label spelling.
const ANSWERED: ReadonlyMap<string, CallOutcome> = new Map([
  ['responded', 'responded'],
  ['sync-timeout', 'sync_timeout'],
  ['flow-ended', 'flow_ended'],
  ['instant-return', 'instant_return'],
]);

export function createFacadeMetrics(token: string | undefined): FacadeMetrics {
  const registry = createMetricsRegistry();
  const requests = registry.counter(
    'flowhook_facade_http_requests_total',
    'HTTP requests the facade answered, by route (webhook, answer, hooks, callbacks, resume, metadata, healthz, readyz, other) and status',
    ['route', 'status'],
  );
  const calls = webhookCallSeries(registry, 'facade', 'status', {
    calls:
      'Webhook calls by company, activity, mode, outcome and HTTP status; refused calls have company and activity "unknown"',
    duration: 'Webhook call latency in the facade, from the request to its answer (sync calls include the sync window)',
  });
  const flows = new BoundedPairs(MAX_FLOW_SERIES);

  function recordWebhookCall(ctx: FacadeContext, status: number, seconds: number): void {
    const answered = status === 200 ? ANSWERED.get(ctx.response.get(OUTCOME_HEADER)) : undefined;
    const outcome: CallOutcome = answered ?? (status < 500 ? 'refused' : 'failed');
    // The pair is bounded by published flows when answered; otherwise it is whatever the caller wrote.
    const [company, activity] = answered
      ? flows.labels(ctx.state.company, activityOf(ctx.request.body))
      : [UNKNOWN, UNKNOWN];
    calls.record(company, activity, modeOf(outcome) ?? UNKNOWN, outcome, statusLabel(status), seconds);
  }

  const middleware: FacadeMiddleware = async function measureRequest(ctx, next) {
    if (ctx.path === '/metrics') return serveMetrics(ctx, registry, token);
    const started = performance.now();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } finally {
      const route = ROUTES.find(([, pattern]) => pattern.test(ctx.path))?.[0] ?? 'other';
      requests.get(route, statusLabel(status)).inc();
      if (route === 'webhook' && ctx.method === 'POST')
        recordWebhookCall(ctx, status, (performance.now() - started) / 1000);
    }
  };
  return { registry, middleware };
}

async function serveMetrics(ctx: FacadeContext, registry: MetricsRegistry, token: string | undefined): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.status = 405;
    ctx.set('Allow', 'GET, HEAD');
    return;
  }
  const access = publicMetricsAccess(ctx.req.headers, token, 'FLOWHOOK_FACADE_METRICS_PORT');
  if (!access.allowed) {
    if (access.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="flowhook metrics"');
    ctx.status = access.status;
    ctx.type = 'text/plain';
    ctx.body = `${access.message}\n`;
    return;
  }
  ctx.set('Content-Type', METRICS_CONTENT_TYPE);
  ctx.body = await registry.text();
}

/** The activity of an answered call, as the engine matched it (activities are stored lowercase). */
function activityOf(body: unknown): string | undefined {
  const activity = (body as { activity?: unknown } | undefined)?.activity;
  return typeof activity === 'string' ? activity.toLowerCase() : undefined;
}
