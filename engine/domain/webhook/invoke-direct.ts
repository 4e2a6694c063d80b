// The provider route (POST /{instance}/hooks/{company}/{activity}) for one
// request, cheap before expensive: the route's rate limit, the published flow
// (cached), its signing secret (cached), the signature over the exact bytes —
// and only then anything that writes. Nothing starts unless the signature
// verified; the delivery's signed event id, or else a digest of exactly what
// its signature covers, makes a redelivery or a replay join the first
// execution (the Idempotency-Key machinery, idempotency.ts). On routes without a
// signed timestamp the engines also remember accepted deliveries
// (direct/delivery-memory.ts), so a replay after Temporal dropped the first
// execution is refused rather than run again.
import type { InvokeDirectRequest } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DirectRoute } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { isJsonMediaType, resolveTrigger, type ResolvedTrigger } from '../../../flow/index.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../common/json-depth.ts';
import { exceedsNameLimit } from '../../../common/name-limits.ts';
import type { RefusalReason } from '../../../common/refusal-reasons.ts';
import { annotateActiveSpan } from '../../../common/tracing/span-attributes.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { InvalidArgumentError, NotFoundError, PermissionDeniedError, UnauthenticatedError } from '../../errors.ts';
import {
  schemeOf,
  slackChallenge,
  verifyDirectRequest,
  withheldHeaders,
  type DeliveryKey,
  type DirectRefusal,
  type DirectSchemeName,
} from '../direct/verification/index.ts';
import type { HookSecretLookup } from '../direct/hook-secret-lookup.ts';
import type { DeliveryMemory } from '../direct/delivery-memory.ts';
import { actsForCompany, type ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import type { ExecutionRequest } from '../executions/execution-start-options.ts';
import type { StartedExecution } from '../executions/execution-starter.ts';
import { bodyForFlow, directRouteOf, headerMap, mediaTypeOf, visibleHeaders } from './direct-request.ts';
import { executionRequest, startExecution } from './execution-request.ts';
import { deliveryIdempotencyKey } from '../flow-control/idempotency.ts';
import type { InvokeDeps } from './invoke-webhook.ts';
import type { PublishedFlowSnapshot } from '../flows/published-flow-lookup.ts';

export interface InvokeDirectDeps extends InvokeDeps {
  hookSecrets: HookSecretLookup;
  /** Accepted deliveries of routes without a signed timestamp, for FLOWHOOK_HOOK_REPLAY_WINDOW. */
  deliveries: DeliveryMemory;
}

/** Told what the call resolved to, for metrics (a bounded scheme label, not the flow). */
export interface DirectObserver {
  routeResolved(scheme: string, responseMode: string): void;
}

/** Slack's url_verification: answered by the engine itself, no execution. */
export interface ChallengeAnswer {
  challenge: string;
}

/** A refusal of the provider route: `scheme` and `hint` are for the engine's log line, never for the caller. */
export class DirectRefusedError extends UnauthenticatedError {
  readonly scheme: string;
  readonly hint: string | undefined;

  constructor(reason: RefusalReason, scheme: string, hint?: string) {
    super('Unauthorized', reason);
    this.scheme = scheme;
    this.hint = hint;
  }
}

const VERIFIER_REFUSALS: Readonly<Record<DirectRefusal, RefusalReason>> = {
  missing_header: 'missing_signature_header',
  malformed_header: 'malformed_signature_header',
  stale_timestamp: 'stale_timestamp',
  signature_mismatch: 'signature_mismatch',
};

/** The same answer for an unknown company, an unknown activity and a flow without `direct`: this route is unauthenticated. */
const NO_ROUTE = 'No provider route at this address';

export async function invokeDirect(
  deps: InvokeDirectDeps,
  request: InvokeDirectRequest,
  account: ServiceAccountIdentity,
  observer?: DirectObserver,
): Promise<StartedExecution | ChallengeAnswer> {
  if (!request.company || !request.activity) throw new InvalidArgumentError('company and activity are required');
  if (request.method.toUpperCase() !== 'POST') throw new InvalidArgumentError('the provider route takes POST');
  // A name longer than any can be is a miss like any other, before it is counted anywhere.
  if (exceedsNameLimit('company', request.company) || exceedsNameLimit('activity', request.activity))
    throw new NotFoundError(NO_ROUTE);
  // Before anything is looked up: the one budget a caller without a valid signature can spend.
  deps.limits.admitHookRoute(request.company, request.activity.toLowerCase());
  const em = deps.orm.em.fork();
  const { published, route, trigger, scheme } = await findRoute(deps, em, request);
  observer?.routeResolved(scheme, trigger.responseMode);
  const headers = headerMap(request.headers);
  const { eventId, delivery } = await verify(deps, em, { published, route, trigger, scheme }, headers, request.body);

  // As on the OData route, the account's companies are checked once the request proved itself.
  if (!actsForCompany(account, published.company.id)) {
    throw new PermissionDeniedError(
      `Service account "${account.name}" may not call flows of company "${published.company.name}"`,
      { reason: 'service_account_company' },
    );
  }
  const challenge = slackChallenge(route, request.body);
  if (challenge !== undefined) return { challenge };

  annotateActiveSpan({
    'flowhook.flow': published.flow.name,
    'flowhook.flow_version': published.flowVersion.version,
    'flowhook.response_mode': trigger.responseMode,
    'flowhook.direct_scheme': scheme,
  });
  deps.limits.admitActivity(published.company.name, trigger.activity);
  const execution = await directExecution(
    deps,
    { published, route, trigger, scheme },
    { headers, body: request.body, query: request.query, eventId, delivery },
  );
  if (delivery.signedTimestamp) return startExecution(deps, execution, trigger.responseMode);
  // No signed timestamp: nothing but memory tells a replay of this delivery from a new event.
  const id = execution.executionId;
  if (await deps.deliveries.remembers(em, id))
    return startExecution(deps, { ...execution, joinOnly: true }, trigger.responseMode);
  return startExecution(
    deps,
    { ...execution, onStarted: () => deps.deliveries.remember(em, id) },
    trigger.responseMode,
  );
}

interface ResolvedRoute {
  published: PublishedFlowSnapshot;
  route: DirectRoute;
  trigger: ResolvedTrigger;
  scheme: DirectSchemeName;
}

/** The published flow behind the path, if its trigger opens this route; one 404 for every kind of miss. */
async function findRoute(
  deps: InvokeDirectDeps,
  em: EntityManager,
  request: InvokeDirectRequest,
): Promise<ResolvedRoute> {
  const published = await deps.publishedFlows.findIfPublished(em, request.company, request.activity);
  const webhook = published?.flowVersion.definition.trigger?.webhook ?? {};
  const route = directRouteOf(webhook.direct);
  if (!published || !route) throw new NotFoundError(NO_ROUTE);
  return { published, route, trigger: resolveTrigger(webhook), scheme: schemeOf(route) };
}

/** The signature over the exact bytes, under the route's hook secret(s); the event id the flow sees, if any, and what identifies the delivery. */
async function verify(
  deps: InvokeDirectDeps,
  em: EntityManager,
  resolved: ResolvedRoute,
  headers: ReadonlyMap<string, string>,
  body: Uint8Array,
): Promise<{ eventId: string | undefined; delivery: DeliveryKey }> {
  const { published, route, trigger, scheme } = resolved;
  const secrets = await deps.hookSecrets.find(em, published.company.id, trigger.activity);
  if (!secrets)
    throw new DirectRefusedError(
      'hook_secret_missing',
      scheme,
      `flowhook hook-secret set ${shellArg(published.company.name)} ${shellArg(trigger.activity)}`,
    );
  const verified = verifyDirectRequest(route, secrets, { headers, body, nowMs: Date.now() });
  if (!verified.ok) throw new DirectRefusedError(VERIFIER_REFUSALS[verified.reason], scheme);
  // Verification hands over only usable ids (printable ASCII, at most 255 characters); anything else is no id.
  return { eventId: verified.eventId || undefined, delivery: verified.delivery };
}

/** What to start: the input the flow reads its Trigger outputs from, and an execution id keyed by the delivery. */
function directExecution(
  deps: InvokeDirectDeps,
  { published, route, trigger, scheme }: ResolvedRoute,
  request: {
    headers: ReadonlyMap<string, string>;
    body: Uint8Array;
    query: string;
    eventId: string | undefined;
    delivery: DeliveryKey;
  },
): Promise<ExecutionRequest> {
  const { eventId } = request;
  const contentType = mediaTypeOf(request.headers.get('content-type'));
  const body = bodyForFlow(request.body);
  // The workflow parses JSON bodies (Trigger.Json); a body nested this deep is refused as on the OData route.
  if (body.encoding === 'text' && isJsonMediaType(contentType) && nestsDeeperThan(body.text, MAX_JSON_DEPTH)) {
    throw new InvalidArgumentError(`the body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return executionRequest(deps, published, trigger, {
    caller: `provider:${scheme}`,
    payloadJson: body.text,
    // Signed material only: a redelivery or a replay gets the same execution id whatever its unsigned headers say.
    idempotencyKey: deliveryIdempotencyKey(deps.idempotencyKey, request.delivery),
    // The encoding is part of what is compared: base64 text and a text body with the same characters are different bodies.
    digestText: `${body.encoding}:${body.text}`,
    direct: {
      method: 'POST',
      headers: visibleHeaders(request.headers, withheldHeaders(route)),
      query: request.query,
      contentType,
      bodyEncoding: body.encoding,
      provider: eventId === undefined ? { scheme } : { scheme, eventId },
    },
  });
}
