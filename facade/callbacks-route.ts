// POST /{instance}/callbacks/{token}: where a waitForCallback step's callback
// arrives. The token in the path is the credential (no Authorization is read:
// a payment provider or any other sender just POSTs to the URL it was given),
// so the facade passes the exact body and every header to the engine, which
// decides (engine/domain/callbacks/), and answers as plain HTTP like the provider
// route: the step's status and `{"received": true}`, errors in the same plain
// JSON shape. The token never reaches a log line: request-context.ts logs this
// route's path without it.
import type { DeliverCallbackResponse } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { WebhookClient } from './engine-client.ts';
import type { FacadeContext, FacadeMiddleware } from './facade-context.ts';
import { requestHeaders } from './hooks-route.ts';
import { NO_TRUSTED_PROXIES, senderOf, type TrustedProxies } from './sender-address.ts';

/** The route as the router matches it (case-insensitive, like the others). */
export const CALLBACKS_ROUTE = '/:instance/callbacks/:token';

/** Set (to `true`) when the answer repeats the one a first delivery of the same body got. */
export const CALLBACK_REPEATED_HEADER = 'x-flowhook-callback-repeated';

/** Everything under /{instance}/callbacks answers errors in the plain JSON shape, wrong paths and methods included. */
export function isCallbacksPath(path: string): boolean {
  return /^\/[^/]+\/callbacks(\/|$)/i.test(path);
}

/** Longer paths are cut in log lines: a path is text any caller chooses. */
const MAX_LOGGED_PATH_LENGTH = 300;

/** The path as a log line may show it: whatever follows /callbacks/ is a capability; at most 300 characters of the rest. */
export function loggablePath(path: string): string {
  const shown = path.replace(/^(\/[^/]+\/callbacks)\/[\s\S]+$/i, '$1/…');
  return shown.length > MAX_LOGGED_PATH_LENGTH ? `${shown.slice(0, MAX_LOGGED_PATH_LENGTH)}…` : shown;
}

export function forwardCallback(deps: {
  webhookClient: Pick<WebhookClient, 'deliverCallback'>;
  trustedProxies?: TrustedProxies;
}): FacadeMiddleware {
  const trustedProxies = deps.trustedProxies ?? NO_TRUSTED_PROXIES;
  return async function deliverCallback(ctx) {
    const response = await deps.webhookClient.deliverCallback({
      token: ctx.params.token ?? '',
      headers: requestHeaders(ctx),
      body: ctx.state.rawBody ?? new Uint8Array(),
      requestId: ctx.state.requestId,
      // Unknown tokens are counted per sender (engine), so one sender's guesses cannot refuse another's callbacks.
      sender: senderOf(ctx.req.socket.remoteAddress, ctx.req.headers['x-forwarded-for'], trustedProxies),
    });
    respond(ctx, response);
  };
}

function respond(ctx: FacadeContext, response: DeliverCallbackResponse): void {
  ctx.status = response.statusCode;
  if (response.repeated) ctx.set(CALLBACK_REPEATED_HEADER, 'true');
  // Set before the body, so Koa keeps this exact type instead of guessing one.
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = JSON.stringify({ received: true });
}
