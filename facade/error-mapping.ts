// The facade's one error mapping, and its first middleware: engine (Connect)
// errors and the facade's own typed errors become an HTTP status and an OData
// error body here, and nowhere else. Messages of unexpected exceptions never
// reach the caller: they may hold details (or data) not meant for it.
// A 401 the facade decided itself is logged here, once, as `call refused` with
// its reason; a 401/403 from the engine is not: the engine logged it already.
// The provider route (hooks-route.ts) gets the same statuses in its own plain
// shape: `{"error": {"code", "message"}}` as `application/json`, no OData
// headers, and a 401 that is that shape with the message `Unauthorized` (no
// Basic challenge: providers sign, they do not log in). A callback URL
// (callbacks-route.ts) answers in that shape too: its senders are the same
// kind of machine, and 409 for a used URL comes from the one table below.
import { STATUS_CODES } from 'node:http';
import { Code, ConnectError } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { logRefusedCall } from '../common/refusal-reasons.ts';
import { RETRY_AFTER_METADATA } from '../common/rpc-metadata.ts';
import { CallerRefusedError } from './caller-credentials.ts';
import type { FacadeContext, FacadeMiddleware } from './facade-context.ts';
import { FacadeHttpError } from './http-errors.ts';
import { isHooksPath } from './hooks-route.ts';
import { isCallbacksPath } from './callbacks-route.ts';
import { ODATA_JSON_CONTENT_TYPE, ODATA_VERSION, odataError } from './odata-envelope.ts';
import { REQUEST_ID_HEADER } from './request-context.ts';

export interface HttpMapping {
  status: number;
  code: string;
}

/** Our table from Connect codes to HTTP; codes not listed are a 500 (the HTTP routes reference lists it). */
export const CONNECT_TO_HTTP: ReadonlyMap<Code, HttpMapping> = new Map([
  [Code.Unauthenticated, { status: 401, code: 'Unauthorized' }],
  [Code.InvalidArgument, { status: 400, code: 'BadRequest' }],
  [Code.PermissionDenied, { status: 403, code: 'Forbidden' }],
  [Code.NotFound, { status: 404, code: 'NotFound' }],
  // The call cannot go ahead in the current state (e.g. an invalid trigger configuration).
  [Code.FailedPrecondition, { status: 409, code: 'Conflict' }],
  // A concurrent change won (the engine's ConflictError); a transport Aborted never gets here (isTransportFailure).
  [Code.Aborted, { status: 409, code: 'Conflict' }],
  // On the webhook path only an Idempotency-Key reused with another payload (IETF idempotency draft: 422).
  [Code.AlreadyExists, { status: 422, code: 'UnprocessableEntity' }],
  [Code.ResourceExhausted, { status: 429, code: 'TooManyRequests' }],
  // A call larger than what it would become may be (a debounce or batch window's execution input).
  [Code.OutOfRange, { status: 413, code: 'PayloadTooLarge' }],
  [Code.Unavailable, { status: 503, code: 'ServiceUnavailable' }],
  [Code.DeadlineExceeded, { status: 503, code: 'ServiceUnavailable' }],
]);

export const INTERNAL: HttpMapping = { status: 500, code: 'InternalServerError' };
const UNAVAILABLE: HttpMapping = { status: 503, code: 'ServiceUnavailable' };

/**
 * The call to the engine failed in transport (the engine crashed or was killed mid-call), not in
 * the engine: 503, retry with the key. connect-node reports such failures under codes that from
 * the engine itself mean something else — an INTERNAL_ERROR reset as Code.Internal ("the flow
 * failed before it responded"), a CANCEL reset as Code.Canceled, a reset socket (ECONNRESET) as
 * Code.Aborted — so they are told apart by their origin: an error the engine sent was decoded
 * from the wire (`isWireError`), one the client raised itself was not. connect-node's reset
 * messages and Canceled count too, also when relayed (the facade cancels an engine call only
 * when its own caller is gone, so a Canceled is never the engine's answer).
 * Found by the engine kill -9 tests (engine-facade-crash, multi-node).
 */
function isTransportFailure(error: ConnectError): boolean {
  if (!error.isWireError) return true;
  if (error.code === Code.Internal && /^http\/2 (stream|connection) closed/.test(error.rawMessage)) return true;
  return error.code === Code.Canceled;
}
const RETRY_AFTER_SECONDS = '5';
// The body of a 401 is exactly this text, whatever the cause (callers match on it).
const UNAUTHORIZED_BODY = 'Unauthorized';
const BASIC_CHALLENGE = 'Basic realm="flowhook"';
const PLAIN_JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** `challenge`: the 401's WWW-Authenticate, naming the schemes the facade accepts (caller-credentials.ts). */
export function errorMapping(logger: Logger, challenge = BASIC_CHALLENGE): FacadeMiddleware {
  return async function mapErrors(ctx, next) {
    try {
      await next();
    } catch (error) {
      if (ctx.headerSent) {
        logger.warn({ requestId: ctx.state.requestId, err: describe(error) }, 'error after the response was sent');
        return;
      }
      respondWithError(ctx, error, logger, challenge);
    }
  };
}

function respondWithError(ctx: FacadeContext, error: unknown, logger: Logger, challenge: string): void {
  const requestId = ctx.state.requestId ?? 'unknown';
  // Headers set on the way in (execution id, content type) belong to the failed answer.
  for (const name of Object.keys(ctx.response.headers)) {
    if (name.toLowerCase() !== REQUEST_ID_HEADER) ctx.remove(name);
  }

  if (error instanceof CallerRefusedError) {
    // Outside the request scope here, so the request id is passed on; the body has not been read, so no activity.
    const company = typeof ctx.query.company === 'string' ? ctx.query.company : undefined;
    logRefusedCall(logger, { ...error.refusal, requestId, company });
  }
  const { status, code, message, headers } = classify(error, requestId, logger);
  ctx.state.errorCode = code;
  ctx.status = status;
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  if (status === 503) ctx.set('Retry-After', RETRY_AFTER_SECONDS);
  if (isHooksPath(ctx.path) || isCallbacksPath(ctx.path)) {
    ctx.set('Content-Type', PLAIN_JSON_CONTENT_TYPE);
    ctx.body = odataError(code, status === 401 ? UNAUTHORIZED_BODY : message);
    return;
  }
  if (status === 401) {
    ctx.set('WWW-Authenticate', challenge);
    ctx.set('Content-Type', 'text/plain; charset=utf-8');
    ctx.body = UNAUTHORIZED_BODY;
    return;
  }
  ctx.set('Content-Type', ODATA_JSON_CONTENT_TYPE);
  ctx.set('OData-Version', ODATA_VERSION);
  ctx.body = odataError(code, message);
}

interface Classified extends HttpMapping {
  message: string;
  headers: Readonly<Record<string, string>>;
}

function classify(error: unknown, requestId: string, logger: Logger): Classified {
  if (error instanceof FacadeHttpError) {
    return { status: error.status, code: error.code, message: error.message, headers: error.headers };
  }
  if (error instanceof ConnectError) {
    const mapping = isTransportFailure(error) ? UNAVAILABLE : (CONNECT_TO_HTTP.get(error.code) ?? INTERNAL);
    if (mapping.status === 503) {
      // Transport failures carry local details (addresses, errno): operators see
      // them in the log, the caller gets a retry hint.
      logger.warn({ requestId, code: Code[error.code], reason: error.rawMessage }, 'engine unavailable');
      return { ...mapping, message: 'The service is temporarily unavailable; retry later', headers: {} };
    }
    if (error.code === Code.Unknown) return internal(requestId, error, logger);
    if (mapping.status === 429)
      return { ...mapping, message: error.rawMessage, headers: { 'Retry-After': retryAfter(error) } };
    // The engine writes its messages for the caller (they name no secret or key).
    return { ...mapping, message: error.rawMessage, headers: {} };
  }
  const status = exposedClientStatus(error);
  if (status !== undefined) {
    // A library error marked safe to expose (http-errors' `expose`), e.g. from the body reader.
    const message = (error as Error).message;
    return { status, code: (STATUS_CODES[status] ?? 'BadRequest').replace(/[^A-Za-z]/g, ''), message, headers: {} };
  }
  return internal(requestId, error, logger);
}

/** The engine's wait in whole seconds; anything unexpected becomes 1 rather than an odd header. */
function retryAfter(error: ConnectError): string {
  const value = error.metadata.get(RETRY_AFTER_METADATA) ?? '';
  return /^[1-9][0-9]{0,4}$/.test(value) ? value : '1';
}

function internal(requestId: string, error: unknown, logger: Logger): Classified {
  logger.error({ requestId, err: describe(error) }, 'internal error');
  return { ...INTERNAL, message: `An internal error occurred (request id ${requestId})`, headers: {} };
}

function exposedClientStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const { status, expose } = error as Error & { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

/** Type, first message line and stack frames; enough to debug, without dumping objects. */
function describe(error: unknown): { type: string; message: string; stack?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: '' };
  const frames = error.stack
    ?.split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n');
  return { type: error.name, message: error.message.split('\n')[0] ?? '', stack: frames };
}
