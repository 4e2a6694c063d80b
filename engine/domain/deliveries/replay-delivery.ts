// Replay: a stored delivery runs again as a new execution on the flow version
// published now — the fix for "it failed on version 1, version 2 is out, send the
// call again" without asking the sender. What runs is what was accepted: the
// endpoint call's payload with its caller's identity (the caller is not
// authenticated again: an admin replays, and the audit log says who), or the
// provider route's bytes, query and headers (credentials and signature
// material are not kept, and the signature is not checked again: it was when
// the delivery was accepted). Like a re-run (reruns/rerun-execution.ts) it runs
// as Instant return — nobody waits — and names the execution it repeats.
//
// A flow with doNotLogPayload keeps no body here. Its replay takes the payload
// from the original execution in Temporal, which is a reveal: only with
// `reveal`, only for admins of its company, and recorded as one
// (executions/execution-payload-reveal.ts), exactly as a re-run on another version.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  isJsonMediaType,
  resolveTrigger,
  type DirectTriggerRequest,
  type ResolvedTrigger,
} from '../../../flow/index.ts';
import { OMITTED_HEADER, REDACTED } from '../../../common/delivery-redaction.ts';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError, PermissionDeniedError } from '../../errors.ts';
import type { Delivery } from '../../infrastructure/storage/entities.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { RERUN_OF_KEY } from '../../infrastructure/temporal/search-attributes.ts';
import type { CompanyReach } from '../callers/company-reach.ts';
import { schemeOf, withheldHeaders } from '../direct/verification/index.ts';
import { describeFlowExecution, startInput } from '../executions/execution-reads.ts';
import type { PublishedFlowSnapshot } from '../flows/published-flow-lookup.ts';
import type { RerunCaller, RerunDeps } from '../reruns/rerun-execution.ts';
import { bodyForFlow, directRouteOf, mediaTypeOf } from '../webhook/direct-request.ts';
import { executionRequest } from '../webhook/execution-request.ts';
import { openRequest } from './delivery-body.ts';
import { findDelivery } from './delivery-reads.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../common/json-depth.ts';

export interface ReplayDeps extends RerunDeps {
  keyring: SecretKeyring;
}

export interface ReplayCaller extends RerunCaller {
  /** Whose deliveries the caller may replay (the admin role's companies on the console). */
  reach: CompanyReach;
}

export interface ReplayResult {
  deliveryId: string;
  executionId: string;
  flowVersion: number;
}

/** The routes whose accepted deliveries started executions. */
const REPLAYABLE_ROUTES = new Set(['endpoint', 'provider']);

/** `<activity>:replay-<uuid>`: a replay is told apart from a call and a re-run in the Temporal UI's id column. */
export function replayExecutionId(activity: string): string {
  return `${activity}:replay-${randomUUID()}`;
}

export async function replayDelivery(
  deps: ReplayDeps,
  caller: ReplayCaller,
  request: { id: string; company?: string; reveal: boolean },
): Promise<ReplayResult> {
  const delivery = await findDelivery(deps.orm, caller.reach, request.id);
  // The console authorizes by the company it names: it must be the delivery's.
  if (request.company && delivery.company !== request.company) throw new NotFoundError(`No delivery "${request.id}"`);
  return replayFound(deps, caller, delivery, request.reveal);
}

/** Why a delivery cannot be replayed at all, or undefined. */
export function notReplayable(delivery: Pick<Delivery, 'id' | 'outcome' | 'route' | 'company' | 'activity'>) {
  if (!REPLAYABLE_ROUTES.has(delivery.route))
    return `Delivery "${delivery.id}" came to the ${delivery.route} route: only calls to the endpoint and the provider route start executions`;
  if (delivery.outcome !== 'accepted')
    return `Delivery "${delivery.id}" was ${delivery.outcome}: only accepted calls are kept to run again`;
  if (!delivery.company || !delivery.activity) return `Delivery "${delivery.id}" names no flow`;
  return undefined;
}

export async function replayFound(
  deps: ReplayDeps,
  caller: ReplayCaller,
  delivery: Delivery,
  reveal: boolean,
): Promise<ReplayResult> {
  const refusal = notReplayable(delivery);
  if (refusal) throw new FailedPreconditionError(refusal);
  const company = delivery.company!;
  const activity = delivery.activity!;
  const em = deps.orm.em.fork();
  const published = await publishedFlow(deps, em, company, activity);
  const resolved = resolveTrigger(published.flowVersion.definition.trigger?.webhook ?? {});
  const executionId = replayExecutionId(resolved.activity);
  const call = delivery.body
    ? storedCall(deps, delivery, published)
    : await revealedCall(deps, caller, delivery, reveal, { executionId, version: published.flowVersion.version });
  const trigger: ResolvedTrigger = {
    ...resolved,
    // Nobody waits for a replay.
    responseMode: 'INSTANT_RETURN',
    // A payload the original kept out of Temporal's history stays out of it.
    doNotLogPayload: resolved.doNotLogPayload || call.withheld,
  };
  const request = await executionRequest(deps, published, trigger, {
    caller: call.caller || `account:${caller.account.name}`,
    payloadJson: call.payloadJson,
    direct: call.direct,
    executionId,
  });
  const original = delivery.executionId ?? undefined;
  await deps.starter.startInstant({
    ...request,
    searchAttributes:
      request.searchAttributes && original
        ? [...request.searchAttributes, { key: RERUN_OF_KEY, value: original }]
        : request.searchAttributes,
    ...(original && { rerun: { of: original, by: caller.account.name } }),
  });
  // The audit line: who replayed which delivery as what. Never the payload.
  deps.logger.info(
    {
      serviceAccount: caller.account.name,
      deliveryId: delivery.id,
      originalExecutionId: original,
      executionId,
      company,
      activity,
      flowVersion: published.flowVersion.version,
    },
    'delivery replayed',
  );
  return { deliveryId: delivery.id, executionId, flowVersion: published.flowVersion.version };
}

interface ReplayedCall {
  caller: string;
  payloadJson: string;
  direct?: DirectTriggerRequest;
  withheld: boolean;
}

async function publishedFlow(
  deps: ReplayDeps,
  em: EntityManager,
  company: string,
  activity: string,
): Promise<PublishedFlowSnapshot> {
  try {
    return await deps.publishedFlows.find(em, company, activity);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new FailedPreconditionError(`${error.message}: publish a version to replay its deliveries on`);
  }
}

/** The request as the delivery log sealed it. */
function storedCall(deps: ReplayDeps, delivery: Delivery, published: PublishedFlowSnapshot): ReplayedCall {
  const stored = openRequest(deps.keyring, delivery.id, delivery.body!);
  if (delivery.route === 'endpoint')
    return { caller: delivery.caller ?? '', payloadJson: Buffer.from(stored.body).toString('utf8'), withheld: false };
  const route = directRouteOf(published.flowVersion.definition.trigger?.webhook?.direct);
  if (!route)
    throw new FailedPreconditionError(
      `Version ${published.flowVersion.version} of flow "${published.flow.name}" has no provider route (trigger.webhook.direct) to replay this delivery on`,
    );
  const scheme = schemeOf(route);
  const withheld = withheldHeaders(route);
  const headers: Record<string, string> = {};
  for (const [name, value] of delivery.headers ?? []) {
    if (value === REDACTED || name === OMITTED_HEADER || withheld.has(name)) continue;
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  const contentType = mediaTypeOf(headers['content-type']);
  const body = bodyForFlow(stored.body);
  if (body.encoding === 'text' && isJsonMediaType(contentType) && nestsDeeperThan(body.text, MAX_JSON_DEPTH))
    throw new InvalidArgumentError(`the body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  return {
    caller: `provider:${scheme}`,
    payloadJson: body.text,
    direct: {
      method: 'POST',
      headers,
      query: stored.query,
      contentType,
      bodyEncoding: body.encoding,
      provider: { scheme },
    },
    withheld: false,
  };
}

/** No body kept (doNotLogPayload): the original execution's input, for an admin who reveals it. */
async function revealedCall(
  deps: ReplayDeps,
  caller: ReplayCaller,
  delivery: Delivery,
  reveal: boolean,
  replay: { executionId: string; version: number },
): Promise<ReplayedCall> {
  const company = delivery.company!;
  if (!reveal)
    throw new PermissionDeniedError(
      `Delivery "${delivery.id}" kept no body: its flow does not log payloads (doNotLogPayload). Replaying it takes the payload from its execution, ` +
        `a reveal only an admin of company "${company}" may make: replay with reveal (--reveal)`,
    );
  if (!caller.reveals.mayReveal(company))
    throw new PermissionDeniedError(
      `Replaying delivery "${delivery.id}" reveals a doNotLogPayload payload, which only an admin of company "${company}" may do`,
    );
  if (!delivery.executionId)
    throw new FailedPreconditionError(`Delivery "${delivery.id}" kept no body and names no execution to take it from`);
  const { description } = await describeFlowExecution(deps.temporal, delivery.executionId, {
    taskQueue: deps.taskQueue,
  });
  const input = await startInput(deps.temporal, delivery.executionId, description.runId);
  if (!input?.payloadJson && input?.payloadJson !== '')
    throw new FailedPreconditionError(`Execution "${delivery.executionId}" has no input a replay could repeat`);
  await caller.reveals.record({
    company,
    executionId: delivery.executionId,
    details: { deliveryId: delivery.id, replayExecutionId: replay.executionId, flowVersion: replay.version },
  });
  return { caller: input.caller, payloadJson: input.payloadJson, direct: input.direct, withheld: true };
}
