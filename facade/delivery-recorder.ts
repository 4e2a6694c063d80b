// The delivery log's middleware: for every request to the webhook endpoint, the
// resume action, the late-answer function, the provider route and the callback
// routes it queues one report (delivery-reporter.ts) once the answer is sent —
// never before, and nothing awaits it, so a caller never waits on the log. It
// sits inside the error mapping: it sees the error a refusal leaves with (and
// the reason that error carries, delivery-reasons.ts), and on 'close' the final
// status the mapping gave it. What it keeps: names and numbers, the headers with
// every credential redacted (common/delivery-redaction.ts), and for an accepted
// call the payload that started the execution (the endpoint's `payload` member,
// never the body around it, which holds the flow's secret; the provider route's
// bytes and query) — the engine keeps that only for flows without
// doNotLogPayload, encrypted.
import { exceedsNameLimit } from '../common/name-limits.ts';
import { redactedHeaders } from '../common/delivery-redaction.ts';
import type { FacadeContext, FacadeMiddleware } from './facade-context.ts';
import { CallerRefusedError } from './caller-credentials.ts';
import { CLIENT_CLOSED_STATUS, deliveryOutcome, deliveryReason, refusalReasonOf } from './delivery-reasons.ts';
import type { DeliveryReporter, PendingDelivery } from './delivery-reporter.ts';
import { OUTCOME_HEADER } from './invoke-route.ts';
import { NO_TRUSTED_PROXIES, senderOf, type TrustedProxies } from './sender-address.ts';

export type DeliveryRoute = 'endpoint' | 'resume' | 'answer' | 'provider' | 'callback';

const ROUTES: readonly [DeliveryRoute, RegExp][] = [
  ['endpoint', /^\/[^/]+\/odatav4\/flowwebhook_invoke\/?$/i],
  ['resume', /^\/[^/]+\/odatav4\/flowwebhook_resume\/?$/i],
  ['answer', /^\/[^/]+\/odatav4\/flowwebhook_answer(\(|\/?$)/i],
  ['provider', /^\/[^/]+\/hooks(\/|$)/i],
  ['callback', /^\/[^/]+\/callbacks(\/|$)/i],
];

/** Which logged route a path is, or undefined: not a delivery (metadata, health, metrics, anything else). */
export function deliveryRouteOf(path: string): DeliveryRoute | undefined {
  return ROUTES.find(([, pattern]) => pattern.test(path))?.[0];
}

/** Caller-written names are bounded as everywhere: longer than any can be is cut. */
const MAX_NAME = 250;

export function recordDeliveries(deps: {
  reporter: DeliveryReporter;
  trustedProxies?: TrustedProxies;
}): FacadeMiddleware {
  const trustedProxies = deps.trustedProxies ?? NO_TRUSTED_PROXIES;
  return async function recordDelivery(ctx, next) {
    const route = deliveryRouteOf(ctx.path);
    if (!route) return next();
    const receivedAt = performance.now();
    let failure: { error: unknown } | undefined;
    ctx.res.once('close', () => {
      // Off the answer's path: the socket is done with; a fault here must never reach the caller or the process.
      try {
        deps.reporter.report(delivery(ctx, route, receivedAt, failure, trustedProxies));
      } catch {
        // A report that cannot be built is not one to keep.
      }
    });
    try {
      await next();
    } catch (error) {
      failure = { error };
      throw error;
    }
  };
}

function delivery(
  ctx: FacadeContext,
  route: DeliveryRoute,
  receivedAt: number,
  failure: { error: unknown } | undefined,
  trustedProxies: TrustedProxies,
): PendingDelivery {
  // The caller went away before its answer was written (a sync call given up): no status reached it.
  const aborted = !ctx.res.writableFinished;
  const status = aborted ? CLIENT_CLOSED_STATUS : ctx.status;
  const outcome = deliveryOutcome(failure !== undefined || aborted, status);
  const [pathCompany, pathActivity] = route === 'provider' ? providerPathNames(ctx.path) : [];
  const accepted = outcome === 'accepted';
  return {
    receivedAt,
    route,
    company: bounded(ctx.state.company ?? pathCompany ?? queryCompany(ctx)),
    activity: bounded((pathActivity ?? bodyActivity(ctx))?.toLowerCase()),
    caller: callerLabel(ctx, failure?.error),
    sender: senderOf(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for'], trustedProxies),
    outcome,
    reason: deliveryReason(outcome, status, failure && refusalReasonOf(failure.error)),
    status,
    answer: accepted ? ctx.response.get(OUTCOME_HEADER) : '',
    latencyMs: Math.round(performance.now() - receivedAt),
    requestId: ctx.state.requestId ?? '',
    executionId: accepted ? (ctx.state.executionId ?? '') : '',
    headers: redactedHeaders(ctx.req.rawHeaders),
    ...(accepted && acceptedRequest(ctx, route)),
  };
}

/** What a replay runs again: the endpoint's payload text; the provider route's bytes and query. */
function acceptedRequest(ctx: FacadeContext, route: DeliveryRoute): { body: Uint8Array; query?: string } | undefined {
  if (route === 'provider' && ctx.state.rawBody) return { body: ctx.state.rawBody, query: ctx.querystring };
  // Read once by the route (webhook-request.ts): the text is not scanned a second time.
  if (route === 'endpoint' && ctx.state.payloadJson !== undefined)
    return { body: Buffer.from(ctx.state.payloadJson, 'utf8') };
  return undefined;
}

/** `user:<name>` for Basic (as claimed: a refused call's user may not exist), `app:<clientId>` for a verified token. */
function callerLabel(ctx: FacadeContext, error: unknown): string {
  const identity = ctx.state.caller?.identity;
  if (identity?.case === 'basic' && identity.value.userName)
    return bounded(`user:${identity.value.userName}`, 300) ?? '';
  if (identity?.case === 'application' && identity.value.clientId)
    return bounded(`app:${identity.value.clientId}`, 300) ?? '';
  if (error instanceof CallerRefusedError && error.refusal.clientId)
    return bounded(`app:${error.refusal.clientId}`, 300) ?? '';
  return '';
}

function providerPathNames(path: string): [string | undefined, string | undefined] {
  const [, , , company, activity] = path.split('/');
  return [decoded(company), decoded(activity)];
}

function decoded(segment: string | undefined): string | undefined {
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function queryCompany(ctx: FacadeContext): string | undefined {
  const company = ctx.query.company;
  return typeof company === 'string' ? company : undefined;
}

function bodyActivity(ctx: FacadeContext): string | undefined {
  const body: unknown = ctx.request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const activity = (body as Record<string, unknown>).activity;
  return typeof activity === 'string' && activity !== '' && !exceedsNameLimit('activity', activity)
    ? activity
    : undefined;
}

function bounded(text: string | undefined, max = MAX_NAME): string | undefined {
  if (!text) return undefined;
  return text.length > max ? text.slice(0, max) : text;
}
