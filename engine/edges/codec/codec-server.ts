// The codec server: Temporal's remote codec protocol over the engine's payload
// key ring, for operators reading doNotLogPayload executions in the Temporal UI (or
// with `temporal workflow show --codec-endpoint`). Runs inside the engine
// process on its own HTTP(S) listener (FLOWHOOK_CODEC_PORT).
//
//   POST [/{namespace}]/decode   decrypt `binary/encrypted` payloads, pass the others through
//                                (the UI sends no workflow id: the one bound in the metadata is used, proven by the GCM tag)
//   POST [/{namespace}]/encode   encrypt what the worker's codec would (marked payloads) — nothing else
//   OPTIONS …                    CORS preflight, for the allowed UI origins only
//   GET  /login, POST /login, POST /logout   the operator's session (see codec-sessions.ts)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Payload } from '@temporalio/common';
import type { Logger } from 'pino';
import {
  ENCRYPTED_ENCODING,
  PayloadDecryptionError,
  PayloadEncryptionCodec,
} from '../../../workflows/codec/payload-codec.ts';
import type { PayloadKeyring } from '../../../workflows/codec/payload-keyring.ts';
import type { ServiceAccountDirectory } from '../../domain/callers/service-account-directory.ts';
import { browserCookie } from '../http/browser-sessions.ts';
import { answerFailure, header, HttpRefusal, mediaType, readBody, sendJson, sendText } from '../http/http-answers.ts';
import { startWebServer, type WebServer } from '../http/web-server.ts';
import { authenticateOperator, SESSION_COOKIE, type CodecAuthDeps } from './codec-auth.ts';
import type { CodecServerConfig } from './codec-config.ts';
import { corsHeaders, judgeOrigin, preflightHeaders } from './codec-cors.ts';
import { operatorTokenVerifier } from './codec-oauth.ts';
import { CodecRequestError, parseCodecRequest, serializeCodecResponse } from './codec-protocol.ts';
import { CodecSessions, type CodecOperator } from './codec-sessions.ts';
import { handleLogin, handleLogout, showLogin } from './login-routes.ts';

/** One history page of payloads with room to spare; Temporal's own per-payload limit is 2 MB. */
export const MAX_CODEC_BODY_BYTES = 8 * 1024 * 1024;
/** `/decode`, or `/{namespace}/decode` as the CLI's `--codec-endpoint http://…/{namespace}` templating sends it. */
const CODEC_PATH = /^(?:\/([^/]+))?\/(decode|encode)$/;

export interface CodecServerDeps {
  config: CodecServerConfig;
  /** The engine's payload keyring: any of its keys decrypts; /encode uses the current one. */
  payloadKeys: PayloadKeyring;
  accounts: ServiceAccountDirectory;
  logger: Logger;
}

/** The codec server listening; its `url` (e.g. http://127.0.0.1:8234) is what the UI's codec endpoint setting names. */
export type RunningCodecServer = WebServer;

export async function startCodecServer(deps: CodecServerDeps): Promise<RunningCodecServer> {
  const { config, logger } = deps;
  const codec = new PayloadEncryptionCodec(deps.payloadKeys);
  const sessions = new CodecSessions(config.sessionTtlMs);
  const secure = config.tls !== undefined;
  const oauth = config.oauth ? operatorTokenVerifier(config.oauth, logger) : undefined;
  const auth: CodecAuthDeps = {
    accounts: deps.accounts,
    sessions,
    cookie: browserCookie(SESSION_COOKIE, secure),
    oauth,
  };
  const context = { config, auth, sessions, logger, secure };

  const server = await startWebServer({
    host: config.host,
    port: config.port,
    tls: config.tls,
    requestTimeoutMs: 30_000,
    portTaken: () =>
      new Error(
        `the codec server's port ${config.port} on ${config.host} is already in use: choose another with FLOWHOOK_CODEC_PORT`,
      ),
    handler: (request, response) => {
      route(request, response, context, codec).catch((error: unknown) => {
        if (error instanceof HttpRefusal)
          return sendJson(response, error.status, { message: error.message }, originHeaders(request, config));
        logger.error(
          { reason: error instanceof Error ? error.message : String(error) },
          'codec server: request failed',
        );
        answerFailure(response, () =>
          sendJson(response, 500, { message: 'internal error' }, originHeaders(request, config)),
        );
      });
    },
  });
  logger.info(
    { url: server.url, allowedOrigins: config.allowedOrigins, oauth: config.oauth ? config.oauth.issuer : 'off' },
    'codec server listening',
  );
  return server;
}

type Context = {
  config: CodecServerConfig;
  auth: CodecAuthDeps;
  sessions: CodecSessions;
  logger: Logger;
  secure: boolean;
};

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  context: Context,
  codec: PayloadEncryptionCodec,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://codec').pathname;
  const method = request.method ?? 'GET';
  if (path === '/' && method === 'GET') return sendText(response, 303, '', { location: '/login' });
  if (path === '/login') {
    if (method === 'GET') return showLogin(request, response, context);
    if (method === 'POST') return handleLogin(request, response, context);
    return sendText(response, 405, '', { allow: 'GET, POST' });
  }
  if (path === '/logout')
    return method === 'POST'
      ? handleLogout(request, response, context)
      : sendText(response, 405, '', { allow: 'POST' });
  const [, pathNamespace, operation] = (CODEC_PATH.exec(path) ?? []) as (string | undefined)[];
  if (operation !== 'decode' && operation !== 'encode')
    return sendJson(response, 404, {
      message: 'not found: the codec server answers POST /decode and POST /encode (and GET /login)',
    });
  if (method === 'OPTIONS') return preflight(request, response, context.config);
  if (method !== 'POST') return sendText(response, 405, '', { allow: 'POST, OPTIONS' });
  return convert(operation, pathNamespace, request, response, context, codec);
}

function preflight(request: IncomingMessage, response: ServerResponse, config: CodecServerConfig): void {
  const origin = header(request, 'origin');
  if (judgeOrigin(origin, config.allowedOrigins) !== 'allowed') return refuseOrigin(response, origin);
  sendText(
    response,
    204,
    '',
    preflightHeaders(origin!, header(request, 'access-control-request-private-network') === 'true'),
  );
}

async function convert(
  operation: 'decode' | 'encode',
  pathNamespace: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
  context: Context,
  codec: PayloadEncryptionCodec,
): Promise<void> {
  const origin = header(request, 'origin');
  const verdict = judgeOrigin(origin, context.config.allowedOrigins);
  if (verdict === 'refused') return refuseOrigin(response, origin);
  const cors = verdict === 'allowed' ? corsHeaders(origin!) : {};
  // Credentials first, from the headers alone: nobody unauthenticated gets a body read.
  const operator = await authenticateOperator(
    { authorization: header(request, 'authorization'), cookie: header(request, 'cookie'), origin: verdict },
    context.auth,
  );
  if (!operator) {
    response.setHeader('connection', 'close');
    return sendJson(
      response,
      401,
      { message: signInHint(context) },
      { ...cors, 'www-authenticate': 'Bearer realm="flowhook codec server"' },
    );
  }
  if (mediaType(request) !== 'application/json')
    throw new HttpRefusal(415, 'send the payloads as Content-Type: application/json');
  let wire;
  try {
    wire = parseCodecRequest(await readBody(request, MAX_CODEC_BODY_BYTES));
  } catch (error) {
    if (error instanceof CodecRequestError) throw new HttpRefusal(400, error.message);
    throw error;
  }
  const results = [];
  for (const [index, item] of wire.entries()) {
    const payload = await convertOne(operation, codec, item.payload, index);
    results.push({ ...item, payload: payload ?? item.payload, changed: payload !== undefined });
  }
  // For the log only: the key is the same for every namespace.
  const namespace = (header(request, 'x-namespace') ?? pathNamespace ?? '').slice(0, 200);
  logOperation(
    context.logger,
    operation,
    operator,
    namespace,
    results.length,
    results.filter((result) => result.changed).length,
  );
  sendText(response, 200, serializeCodecResponse(results), { ...cors, 'content-type': 'application/json' });
}

/** The converted payload, or undefined when the codec leaves it as it is. */
async function convertOne(
  operation: 'decode' | 'encode',
  codec: PayloadEncryptionCodec,
  payload: Payload,
  index: number,
): Promise<Payload | undefined> {
  if (operation === 'encode') {
    const [encoded] = await codec.encode([payload]);
    return encoded === payload ? undefined : encoded;
  }
  if (new TextDecoder().decode(payload.metadata?.encoding ?? new Uint8Array()) !== ENCRYPTED_ENCODING) return undefined;
  try {
    return (await codec.decode([payload]))[0];
  } catch (error) {
    // The codec's reasons name a key id (public metadata) or the binding, never a key: safe to pass on.
    if (error instanceof PayloadDecryptionError)
      throw new HttpRefusal(422, `payloads[${index}] cannot be decrypted: ${error.message}`);
    throw new HttpRefusal(
      422,
      `payloads[${index}] cannot be decrypted: it was encrypted with a key not in the payload keyring, or altered`,
    );
  }
}

function logOperation(
  logger: Logger,
  operation: string,
  operator: CodecOperator,
  namespace: string,
  payloads: number,
  changed: number,
): void {
  // Who read what, never the payloads: decrypting is an access an auditor wants to see.
  logger.info(
    {
      operator: operator.name,
      via: operator.via,
      namespace,
      payloads,
      [operation === 'decode' ? 'decrypted' : 'encrypted']: changed,
    },
    `codec server: ${operation}`,
  );
}

function refuseOrigin(response: ServerResponse, origin: string | undefined): void {
  sendJson(response, 403, {
    message: `pages from ${origin ?? 'this origin'} may not call the codec server: add the Temporal UI's origin to FLOWHOOK_CODEC_ALLOWED_ORIGINS`,
  });
}

function signInHint(context: Context): string {
  const oauth = context.config.oauth
    ? `, or an access token of group "${context.config.oauth.group}" from ${context.config.oauth.issuer}`
    : '';
  return `sign in: open this codec server's /login page in the browser and paste an admin token (then turn on "Include cross-origin credentials" in the UI's codec settings), or send Authorization: Bearer <admin-scope service account token or FLOWHOOK_ADMIN_TOKEN${oauth}>`;
}

function originHeaders(request: IncomingMessage, config: CodecServerConfig): Record<string, string> {
  const origin = header(request, 'origin');
  return judgeOrigin(origin, config.allowedOrigins) === 'allowed' ? corsHeaders(origin!) : {};
}
