// POST /{instance}/hooks/{company}/{activity}: the provider route. Providers
// (Stripe, GitHub, Slack, Shopify, Standard Webhooks senders) POST their own
// body and sign it; the facade passes the exact bytes, every header and the
// query string to the engine, which verifies the signature and starts the flow,
// and answers as plain HTTP: the flow's status, content type and body, with no
// OData envelope. No Authorization is read here: the signature is the
// authentication (a provider sends no Basic or Bearer credentials).
import type { InvokeDirectResponse } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { WebhookClient } from './engine-client.ts';
import type { FacadeContext, FacadeMiddleware } from './facade-context.ts';
import { exceedsNameLimit } from '../common/name-limits.ts';
import { MethodNotAllowedError, RouteNotFoundError } from './http-errors.ts';
import { EXECUTION_ID_HEADER, headerSafe, OUTCOME_HEADER, OUTCOMES } from './invoke-route.ts';

/** What every miss of this route is answered (the engine's words for it, too). */
const NO_PROVIDER_ROUTE = 'No provider route at this address';

/** The route as the router matches it (case-insensitive, like the OData route). */
export const HOOKS_ROUTE = '/:instance/hooks/:company/:activity';

/** Everything under /{instance}/hooks answers errors in this route's plain JSON shape, wrong paths and methods included. */
export function isHooksPath(path: string): boolean {
  return /^\/[^/]+\/hooks(\/|$)/i.test(path);
}

/**
 * A company or activity longer than any can be names no route: the same 404 the engine gives every
 * miss, before the body is read or the engine is asked, so such a path is counted and remembered nowhere.
 */
export function routeNamesWithinLimits(): FacadeMiddleware {
  return async function checkRouteNames(ctx, next) {
    if (
      exceedsNameLimit('company', ctx.params.company ?? '') ||
      exceedsNameLimit('activity', ctx.params.activity ?? '')
    )
      throw new RouteNotFoundError(NO_PROVIDER_ROUTE);
    await next();
  };
}

/** Any method but POST: 405 naming POST (OPTIONS and HEAD too: providers only POST). */
export function onlyPost(): FacadeMiddleware {
  return async function refuseMethod(ctx) {
    throw new MethodNotAllowedError(ctx.method, 'POST');
  };
}

export function forwardProviderRequest(deps: { webhookClient: Pick<WebhookClient, 'invokeDirect'> }): FacadeMiddleware {
  return async function invokeProviderRoute(ctx) {
    // The router has decoded the path parameters (a company "Contoso & Co" arrives as Contoso%20%26%20Co).
    const company = ctx.params.company ?? '';
    ctx.state.company = company;
    const response = await deps.webhookClient.invokeDirect({
      company,
      activity: ctx.params.activity ?? '',
      method: ctx.method,
      headers: requestHeaders(ctx),
      query: ctx.querystring,
      body: ctx.state.rawBody ?? new Uint8Array(),
      requestId: ctx.state.requestId,
    });
    respond(ctx, response);
  };
}

/** Every header as received, names lower-cased, repeated ones as separate entries in order: the engine decides what the flow sees. */
export function requestHeaders(ctx: FacadeContext): { name: string; value: string }[] {
  const raw = ctx.req.rawHeaders;
  const headers: { name: string; value: string }[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push({ name: raw[i]!.toLowerCase(), value: raw[i + 1]! });
  return headers;
}

function respond(ctx: FacadeContext, response: InvokeDirectResponse): void {
  ctx.state.executionId = response.executionId || undefined;
  if (response.executionId) ctx.set(EXECUTION_ID_HEADER, headerSafe(response.executionId));
  const outcome = OUTCOMES.get(response.outcome);
  if (outcome) ctx.set(OUTCOME_HEADER, outcome);
  ctx.status = response.statusCode;
  // Set before the body, so Koa keeps the flow's exact type instead of guessing one.
  if (response.contentType) ctx.set('Content-Type', response.contentType);
  // The flow's body is text chosen by the flow: never sniffed into something else by a browser.
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = response.body;
}
