// The HTTP routes reference (docs/reference/http-routes.md): the routes the
// facade's router really has (read off a facade built as `flowhook facade`
// builds it), the headers it reads and sets (the facade's `*_HEADER`
// constants), and every status a caller can get, from the one error mapping
// (facade/error-mapping.ts) and the facade's own typed errors
// (facade/http-errors.ts). What each route is for is said here, once; a route
// or header this list does not describe stops the generator.
import type Router from '@koa/router';
import { Code } from '@connectrpc/connect';
import pino from 'pino';
import { ANSWER_SOURCE_HEADER, EXECUTION_STATE_HEADER } from '../../facade/answer-route.ts';
import { createFacade } from '../../facade/app.ts';
import { CALLBACK_REPEATED_HEADER } from '../../facade/callbacks-route.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { CONNECT_TO_HTTP, INTERNAL } from '../../facade/error-mapping.ts';
import * as httpErrors from '../../facade/http-errors.ts';
import { EXECUTION_ID_HEADER, OUTCOME_HEADER } from '../../facade/invoke-route.ts';
import { REQUEST_ID_HEADER } from '../../facade/request-context.ts';
import { code, table } from './markdown.ts';

interface RouteNote {
  /** The path as a caller writes it. */
  path: string;
  credentials: string;
  meaning: string;
}

/** Every path of the router, by its router pattern. */
const ROUTES: Readonly<Record<string, RouteNote>> = {
  '/:instance/ODataV4/$metadata': {
    path: '/{instance}/ODataV4/$metadata',
    credentials: 'none',
    meaning: 'the CSDL document (OData 4.01) declaring the actions and the function below',
  },
  '/:instance/ODataV4/flowWebhook_Invoke': {
    path: '/{instance}/ODataV4/flowWebhook_Invoke?company={company}',
    credentials: 'Bearer or Basic',
    meaning: 'the webhook call: body `{"activity", "secret", "payload"}`, answered with the OData envelope',
  },
  '/:instance/ODataV4/flowWebhook_Resume': {
    path: '/{instance}/ODataV4/flowWebhook_Resume?company={company}',
    credentials: 'Bearer or Basic',
    meaning: 'resumes the `waitForCallback` step waiting for a key: body `{"activity", "secret", "key", "payload"}`',
  },
  '/:instance/ODataV4/flowWebhook_Answer\\(:key\\)': {
    path: "/{instance}/ODataV4/flowWebhook_Answer(executionId='…')?company={company}[&wait=0..60]",
    credentials: 'Bearer or Basic (the caller the execution records)',
    meaning: 'the answer of an execution, also one that came after the sync window closed',
  },
  '/:instance/hooks/:company/:activity': {
    path: '/{instance}/hooks/{company}/{activity}',
    credentials: "the provider's signature (the route's verification scheme)",
    meaning: 'the provider route: any content type, byte-exact, plain HTTP answers',
  },
  '/:instance/callbacks/:token': {
    path: '/{instance}/callbacks/{token}',
    credentials: 'the token in the path',
    meaning: "a `waitForCallback` step's one-time callback URL",
  },
  '/healthz': { path: '/healthz', credentials: 'none', meaning: 'liveness: 200 while the process serves HTTP' },
  '/readyz': {
    path: '/readyz',
    credentials: 'none',
    meaning:
      'readiness: the engine, PostgreSQL and Temporal answer, and a worker polls the flow task queue (503 naming the failing check)',
  },
};

interface HeaderNote {
  direction: 'request' | 'response' | 'both';
  meaning: string;
}

/** The facade's header constants, and the standard headers it reads or sets with a meaning of its own. */
const HEADERS: Readonly<Record<string, HeaderNote>> = {
  authorization: {
    direction: 'request',
    meaning:
      '`Bearer <access token>` (OAuth 2.0 client credentials) or `Basic base64(user:accessKey)`; never on the provider and callback routes',
  },
  'content-type': {
    direction: 'both',
    meaning:
      "requests to the OData actions: `application/json` (else 415); answers: `application/json; odata.metadata=minimal`, or the flow's own on the provider route",
  },
  'idempotency-key': {
    direction: 'request',
    meaning:
      'makes the execution id deterministic for (company, caller, activity, key): a retry joins the first execution or gets its answer again; another payload with the same key is 422',
  },
  'webhook-id': {
    direction: 'request',
    meaning: 'read as `Idempotency-Key` when that is absent (Standard Webhooks senders set it)',
  },
  [REQUEST_ID_HEADER]: {
    direction: 'both',
    meaning:
      "the request id of every log line of the call: the caller's when it is 1–64 characters of `A-Za-z0-9._:-`, else a new UUID; always returned",
  },
  traceparent: {
    direction: 'request',
    meaning: 'W3C trace context the facade continues when tracing is on (with `tracestate`)',
  },
  'x-forwarded-for': {
    direction: 'request',
    meaning: 'names the sender (callback rate limit) only behind one of `FLOWHOOK_TRUSTED_PROXIES`',
  },
  [EXECUTION_ID_HEADER]: {
    direction: 'response',
    meaning: 'the execution that answered (every answered webhook, resume and provider call)',
  },
  [OUTCOME_HEADER]: {
    direction: 'response',
    meaning: "how the caller's window closed: `responded`, `sync-timeout`, `flow-ended`, `instant-return`",
  },
  [EXECUTION_STATE_HEADER]: {
    direction: 'response',
    meaning: '`flowWebhook_Answer`: `running`, `completed` or `failed`',
  },
  [ANSWER_SOURCE_HEADER]: {
    direction: 'response',
    meaning: '`flowWebhook_Answer`: `respond-step`, `late-respond-step` or `default-response`',
  },
  [CALLBACK_REPEATED_HEADER]: {
    direction: 'response',
    meaning: '`true` on the first answer given again to a callback that repeats the accepted body',
  },
  'retry-after': {
    direction: 'response',
    meaning: 'seconds to wait, with 429 and 503 (and 202 from `flowWebhook_Answer`)',
  },
  'www-authenticate': {
    direction: 'response',
    meaning:
      'with 401 on the OData routes: exactly the schemes this facade accepts (`Bearer realm="flowhook", Basic realm="flowhook"`, or one of them)',
  },
  'odata-version': { direction: 'response', meaning: '`4.0` on answers and OData errors; `4.01` on `$metadata`' },
  allow: { direction: 'response', meaning: 'with 405: the methods the path takes' },
};

/** The facade's own header constants: each must be described above. */
const FACADE_HEADER_CONSTANTS = [
  REQUEST_ID_HEADER,
  EXECUTION_ID_HEADER,
  OUTCOME_HEADER,
  EXECUTION_STATE_HEADER,
  ANSWER_SOURCE_HEADER,
  CALLBACK_REPEATED_HEADER,
];

export function renderHttpRoutesReference(): string {
  const routes = routerRoutes();
  const undescribed = [...routes.keys()].filter((path) => ROUTES[path] === undefined);
  if (undescribed.length > 0)
    throw new Error(
      `the facade has routes docs/tooling/http-routes-reference.ts does not describe: ${undescribed.join(', ')}`,
    );
  const gone = Object.keys(ROUTES).filter((path) => !routes.has(path));
  if (gone.length > 0)
    throw new Error(
      `docs/tooling/http-routes-reference.ts describes routes the facade no longer has: ${gone.join(', ')}`,
    );
  for (const header of FACADE_HEADER_CONSTANTS)
    if (HEADERS[header] === undefined) throw new Error(`the facade's header ${header} is not described`);

  const statuses = [
    ...[...CONNECT_TO_HTTP].map(([connect, mapping]) => [
      String(mapping.status),
      code(mapping.code),
      `the engine answered ${code(Code[connect])}`,
    ]),
    [
      String(INTERNAL.status),
      code(INTERNAL.code),
      "any other engine code: `Internal` when the flow failed before it responded (the message names the execution and the failed step); an unexpected error, the engine's or the facade's, whose message is never shown (`An internal error occurred (request id …)`)",
    ],
    [
      '503',
      code('ServiceUnavailable'),
      'the engine could not be reached, or its connection broke mid-call (a transport failure, never a flow failure)',
    ],
    ...facadeErrors().map(({ status, code: errorCode, name }) => [
      String(status),
      code(errorCode),
      `decided by the facade itself (${code(name)})`,
    ]),
  ].sort((a, b) => Number(a[0]) - Number(b[0]));

  return [
    '## Routes',
    '',
    table(
      ['method', 'path', 'credentials', 'what it is'],
      [...routes].map(([pattern, methods]) => [
        methods.join(', '),
        code(ROUTES[pattern]!.path),
        ROUTES[pattern]!.credentials,
        ROUTES[pattern]!.meaning,
      ]),
    ),
    '',
    'Another method on a path the router knows is 405 with `Allow`; any other path is 404.',
    '',
    '## Headers',
    '',
    table(
      ['header', 'in', 'meaning'],
      Object.entries(HEADERS).map(([name, note]) => [code(name), note.direction, note.meaning]),
    ),
    '',
    '## Statuses of failed calls',
    '',
    'Every failure leaves through the one error mapping. On the OData routes the body is `{"error": {"code", "message"}}` with `OData-Version: 4.0`, except 401, whose body is exactly `Unauthorized` with a `WWW-Authenticate` challenge; on the provider and callback routes it is the same JSON shape as `application/json; charset=utf-8`, without OData headers or a challenge.',
    '',
    table(['status', 'code', 'when'], statuses),
  ].join('\n');
}

/** Path pattern → methods, in the order the router matches them. */
function routerRoutes(): Map<string, string[]> {
  const config = readFacadeConfig({ FLOWHOOK_ENGINE_TOKEN: 'docs-generator-token' });
  const refuse = () => Promise.reject(new Error('the HTTP routes reference calls no engine'));
  const webhookClient = {
    invoke: refuse,
    checkCaller: refuse,
    invokeDirect: refuse,
    getAnswer: refuse,
    deliverCallback: refuse,
    resumeCallback: refuse,
  };
  const { app } = createFacade({
    config,
    webhookClient,
    logger: pino({ level: 'silent' }),
    health: { check: refuse } as never,
  });
  const dispatch = app.middleware.find((middleware) => (middleware as { router?: Router }).router !== undefined) as
    { router: Router } | undefined;
  if (!dispatch) throw new Error('the facade has no router middleware');
  const routes = new Map<string, string[]>();
  for (const layer of dispatch.router.stack) {
    const methods = layer.methods.filter((method) => method !== 'HEAD');
    if (methods.length === 0 || methods.length > 2) continue; // router.all(): the 405 for every other method
    routes.set(layer.path as string, [...new Set([...(routes.get(layer.path as string) ?? []), ...methods])]);
  }
  return routes;
}

/** The facade's typed errors (facade/http-errors.ts) with the status and code each answers. */
function facadeErrors(): { name: string; status: number; code: string }[] {
  return Object.entries(httpErrors)
    .filter(
      ([name, value]) =>
        typeof value === 'function' &&
        value !== httpErrors.FacadeHttpError &&
        value.prototype instanceof httpErrors.FacadeHttpError &&
        name.endsWith('Error'),
    )
    .map(([name, ErrorClass]) => {
      const error = new (ErrorClass as new (...args: string[]) => httpErrors.FacadeHttpError)('x', 'x');
      return { name, status: error.status, code: error.code };
    });
}
