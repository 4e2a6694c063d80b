// Cheap before expensive: a Basic caller's user name and access key are
// checked by the engine (WebhookService.CheckCaller) before the facade reads
// or parses the request body, so a wrong key costs one small RPC, not up to
// FLOWHOOK_MAX_BODY_BYTES of reading and JSON parsing. Credentials the engine
// accepted are remembered (as a SHA-256, for a minute) so a steady caller pays
// that RPC once a minute, not per call. Remembering is safe: Invoke checks the
// credentials again, so a key revoked meanwhile is still refused at once — the
// cache only decides whether the body is read first. A refusal is logged by
// the engine (reason, user, company); the facade adds nothing.
import { createHash } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import type { WebhookClient } from './engine-client.ts';
import type { FacadeMiddleware } from './facade-context.ts';

const REMEMBER_MS = 60_000;
const MAX_REMEMBERED = 10_000;

export function precheckBasicCaller(
  client: Pick<WebhookClient, 'checkCaller'>,
  now: () => number = Date.now,
): FacadeMiddleware {
  const accepted = new Map<string, number>();
  // An engine from before CheckCaller answers Unimplemented: then Invoke alone decides, as before.
  let supported = true;
  return async function precheck(ctx, next) {
    const identity = ctx.state.caller?.identity;
    if (supported && identity?.case === 'basic') {
      const fingerprint = createHash('sha256')
        .update(`${identity.value.userName}\0${identity.value.accessKey}`)
        .digest('base64');
      const until = accepted.get(fingerprint);
      if (until === undefined || until <= now()) {
        try {
          await client.checkCaller({
            caller: ctx.state.caller,
            company: ctx.state.company ?? '',
            requestId: ctx.state.requestId,
          });
          if (accepted.size >= MAX_REMEMBERED) accepted.clear();
          accepted.set(fingerprint, now() + REMEMBER_MS);
        } catch (error) {
          if (!(error instanceof ConnectError && error.code === Code.Unimplemented)) throw error;
          supported = false;
        }
      }
    }
    await next();
  };
}
