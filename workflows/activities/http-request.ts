// The httpRequest step's I/O: one outbound HTTP call per attempt, through the
// guarded client (egress policy, redirects by hand, bounded answers). A non-2xx
// answer is data for the flow, not a failure. Network errors and timeouts are
// retried by Temporal per the step's policy; refusals (policy, limits, a
// missing connection) are not, since retrying cannot change them.
// Callback URLs (waitForCallback) reach the activity as placeholders: it asks
// the engine for the real ones and writes them in just before sending; every
// message it raises, and the whole answer it returns, shows the placeholders
// again (callback-urls.ts).
import { Code, ConnectError } from '@connectrpc/connect';
import type { Tracer } from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/activity';
import { XMLParser } from 'fast-xml-parser';
import type {
  ResolveOutboundResponse,
  ResolvedConnection,
} from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { nestsDeeperThan } from '../../common/json-depth.ts';
import type { CallbackReference } from '../../flow/callback-placeholders.ts';
import { connectionAllows } from '../../flow/connection-pin.ts';
import { isSensitive } from '../../flow/payload-converter.ts';
import { parseEgressRules, type EgressPolicy } from '../../flow/egress-policy.ts';
import { credentialHeaders, forgetToken } from '../outbound/connection-credentials.ts';
import { sendGuarded } from '../outbound/guarded-http.ts';
import { traceOutbound } from '../outbound/outbound-tracing.ts';
import type { OAuthTokenCache } from '../outbound/oauth-token-cache.ts';
import { OutboundFailed, OutboundRefused } from '../outbound/outbound-errors.ts';
import { xmlNestsDeeperThan } from '../outbound/xml-depth.ts';
import { CallbackUrls } from './callback-urls.ts';
import type { OutboundClient } from './engine-client.ts';

export interface HttpRequestInput {
  method: string;
  /** Absolute, or (with a connection that has a base URL) a path below it. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Stable per execution and step, so a target that honours it applies a retried call once. */
  idempotencyKey: string;
  /** Whose egress list and connections apply. */
  company?: string;
  caller?: string;
  /** The engine's grant for this execution and company (FlowExecutionInput.executionGrant). */
  executionGrant?: string;
  /** A connection's name, never its secret: the activity asks the engine for it at run time. */
  connection?: string;
  /** The callback URLs the request carries, as their placeholders; absent when it carries none. */
  callbacks?: CallbackReference[];
}

export interface HttpRequestOutput {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  /**
   * The body parsed, when it is XML (content type `…xml`): elements become
   * members named without their namespace prefix (`Envelope.Body.…`), text
   * stays text, attributes are members named `@name`.
   */
  xml?: unknown;
  /** Where the request ended, after redirects. */
  url: string;
  redirects: number;
}

export interface HttpRequestDeps {
  outbound: OutboundClient;
  /** The operator's policy (FLOWHOOK_EGRESS_ALLOW, own ports); a company's list is added per call. */
  policy: EgressPolicy;
  tokens: OAuthTokenCache;
  maxResponseBytes: number;
  maxJsonDepth: number;
  /** Set when tracing is on: each call gets a CLIENT span and sends `traceparent` (outbound-tracing.ts). */
  tracer?: Tracer;
}

export function createHttpRequestActivity(deps: HttpRequestDeps) {
  return async function httpRequest(input: HttpRequestInput): Promise<HttpRequestOutput> {
    const callbacks = new CallbackUrls(input.callbacks ?? []);
    try {
      return await send(deps, input, callbacks);
    } catch (error) {
      throw callbacks.redactFailure(asFailure(error));
    }
  };
}

async function send(
  deps: HttpRequestDeps,
  input: HttpRequestInput,
  callbacks: CallbackUrls,
): Promise<HttpRequestOutput> {
  if (!input.company && callbacks.steps.length > 0)
    throw new OutboundRefused(
      'callback URLs need a company (the engine mints them per execution)',
      'CallbackUnavailable',
    );
  const outbound = input.company ? await resolveOutbound(deps, input, callbacks.steps) : undefined;
  // From here on the real URLs are in the request; messages are redacted on the way out.
  callbacks.learn(outbound?.callbackUrls ?? {});
  const connection = outbound?.connection;
  const url = targetUrl(callbacks.substitute(input.url), connection, input.url);
  const policy = companyPolicy(deps.policy, outbound);
  const limits = { timeoutMs: input.timeoutMs, maxResponseBytes: deps.maxResponseBytes };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = callbacks.substitute(value);
  headers['idempotency-key'] ??= input.idempotencyKey;
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  let added: Record<string, string> = {};
  if (connection) {
    if (!connectionAllows(connection.settings!, url)) {
      throw new OutboundRefused(
        `connection "${connection.name}" may not send its credentials to ${url.origin}${url.pathname} (it is pinned to its base URL and allowed hosts; see flowhook connection show)`,
        'ConnectionPinned',
      );
    }
    added = await credentialHeaders(connection, { company: input.company!, tokens: deps.tokens, policy, limits });
  }
  const answer = await traceOutbound(deps.tracer, input.method, url, (traceHeaders) =>
    sendGuarded(
      {
        method: input.method,
        url,
        // A traceparent the flow set itself wins over ours.
        headers: { ...traceHeaders, ...headers, ...added },
        body: input.body === undefined ? undefined : callbacks.substitute(input.body),
        credentialHeaders: new Set(Object.keys(added)),
        credentialsAllowed: connection ? (next) => connectionAllows(connection.settings!, next) : undefined,
      },
      policy,
      limits,
    ),
  );
  // A refused token is forgotten, so the next attempt or execution fetches a fresh one.
  if (answer.status === 401 && connection) forgetToken(deps.tokens, input.company!, connection);
  // The answer may echo a callback URL (most payment providers repeat the notify URL they were
  // given): it is redacted before it is parsed, so json and xml hold the placeholder as well.
  const headersShown = Object.fromEntries(
    Object.entries(answer.headers).map(([name, value]) => [name, callbacks.redact(value)]),
  );
  const bodyShown = callbacks.redact(new TextDecoder().decode(answer.body));
  return parseAnswer(
    answer.status,
    headersShown,
    bodyShown,
    callbacks.redact(answer.url.toString()),
    answer.redirects,
    deps.maxJsonDepth,
  );
}

async function resolveOutbound(
  deps: HttpRequestDeps,
  input: HttpRequestInput,
  callbackSteps: string[],
): Promise<ResolveOutboundResponse> {
  try {
    return await deps.outbound.resolveOutbound({
      company: input.company!,
      connection: input.connection ?? '',
      caller: input.caller ?? '',
      executionId: input.idempotencyKey.split('/')[0] ?? '',
      executionGrant: input.executionGrant ?? '',
      callbackSteps,
      // A doNotLogPayload execution's input arrives marked: what its callbacks deliver is encrypted in its history.
      callbacksSensitive: callbackSteps.length > 0 && isSensitive(input),
    });
  } catch (error) {
    if (!(error instanceof ConnectError))
      throw new OutboundFailed('the engine could not be asked for the connection and egress list');
    if (
      error.code === Code.NotFound ||
      error.code === Code.FailedPrecondition ||
      error.code === Code.InvalidArgument ||
      error.code === Code.PermissionDenied
    ) {
      throw new OutboundRefused(error.rawMessage, input.connection ? 'ConnectionUnavailable' : 'CompanyUnavailable');
    }
    throw new OutboundFailed(
      `the engine could not be asked for the connection and egress list (${error.rawMessage})`,
      'EngineUnavailable',
    );
  }
}

/** `shown`: the URL as messages may quote it (with callback placeholders, not callback URLs). */
function targetUrl(raw: string, connection: ResolvedConnection | undefined, shown = raw): URL {
  let url: URL;
  const base = connection?.settings?.baseUrl;
  try {
    url =
      base && !/^[a-z][a-z0-9+.-]*:/i.test(raw)
        ? new URL(`${base}${raw.startsWith('/') ? '' : '/'}${raw}`)
        : new URL(raw);
  } catch {
    throw new OutboundRefused(
      `"${shown.slice(0, 200)}" is not an absolute URL${connection ? " (nor a path below the connection's base URL)" : ''}`,
      'InvalidUrl',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundRefused(`unsupported URL scheme ${url.protocol}`, 'InvalidUrl');
  if (url.username || url.password)
    throw new OutboundRefused(
      'URLs with credentials in them are refused: keep credentials in a connection',
      'InvalidUrl',
    );
  return url;
}

function companyPolicy(base: EgressPolicy, outbound: ResolveOutboundResponse | undefined): EgressPolicy {
  const egress = outbound?.egress;
  if (!egress?.narrowed) return base;
  return {
    ...base,
    company: {
      name: egress.company,
      allow: parseEgressRules(egress.allow.join(','), `the egress list of company "${egress.company}"`),
    },
  };
}

function parseAnswer(
  status: number,
  headers: Record<string, string>,
  body: string,
  url: string,
  redirects: number,
  maxJsonDepth: number,
): HttpRequestOutput {
  const output: HttpRequestOutput = { status, headers, body, url, redirects };
  const contentType = headers['content-type'] ?? '';
  if (contentType.includes('json')) {
    // Formulas walk answers recursively: an absurdly deep one is refused, like a deep webhook payload.
    if (nestsDeeperThan(body, maxJsonDepth))
      throw new OutboundRefused(
        `the response JSON nests deeper than ${maxJsonDepth} levels (FLOWHOOK_HTTP_MAX_JSON_DEPTH)`,
        'ResponseTooDeep',
      );
    try {
      output.json = JSON.parse(body);
    } catch {
      // A body labelled JSON that is not JSON stays available as text.
    }
  } else if (/[/+]xml\b/i.test(contentType)) {
    if (xmlNestsDeeperThan(body, maxJsonDepth)) {
      throw new OutboundRefused(
        `the response XML nests deeper than ${maxJsonDepth} levels (FLOWHOOK_HTTP_MAX_JSON_DEPTH)`,
        'ResponseTooDeep',
      );
    }
    output.xml = parseXml(body);
  }
  return output;
}

// Text values stay strings (no number guessing: "007" and big integers keep their spelling).
const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

function parseXml(body: string): unknown {
  try {
    return xmlParser.parse(body, true);
  } catch {
    // A body labelled XML that is not well-formed stays available as text.
    return undefined;
  }
}

function asFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof OutboundRefused) return ApplicationFailure.nonRetryable(error.message, error.type);
  if (error instanceof OutboundFailed) return ApplicationFailure.retryable(error.message, error.type);
  // Nothing unexpected is quoted: its message could hold anything.
  return ApplicationFailure.retryable(
    `the request failed (${error instanceof Error ? error.name : 'unknown error'})`,
    'HttpRequestFailed',
  );
}
