// DeliveryService: operators' view of the delivery log and replay
// (engine/domain/deliveries/). Behind the gate with the admin scope; on the
// console's listener the roles table (console-rpc-policy.ts) checks the company
// first, and each read is cut to the companies the person reaches
// (company-reach.ts), as executions are.
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  DeliverySchema,
  type DeliveryFilter as DeliveryFilterMessage,
  type DeliveryService,
} from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { redactedQuery } from '../../../common/delivery-redaction.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import { companyReach } from '../../domain/callers/company-reach.ts';
import { payloadReveals } from '../../domain/executions/execution-payload-reveal.ts';
import { openRequest } from '../../domain/deliveries/delivery-body.ts';
import {
  findDelivery,
  listDeliveries,
  type DeliveryFilter,
  type ListedDelivery,
} from '../../domain/deliveries/delivery-reads.ts';
import { replayMatching } from '../../domain/deliveries/replay-deliveries.ts';
import { replayDelivery, type ReplayDeps } from '../../domain/deliveries/replay-delivery.ts';
import { createRerunPacer, DEFAULT_RERUNS_PER_SECOND, type RerunPacer } from '../../domain/reruns/rerun-pacer.ts';
import { bodyForFlow } from '../../domain/webhook/direct-request.ts';

export interface DeliveryServiceDeps extends ReplayDeps {
  rerunsPerSecond?: number;
  /** The engine's one re-run pace, shared with re-runs (server.ts), so replays and re-runs together keep to it. */
  rerunPacer?: RerunPacer;
}

export function createDeliveryService(deps: DeliveryServiceDeps): ServiceImpl<typeof DeliveryService> {
  const pacer = deps.rerunPacer ?? createRerunPacer(deps.rerunsPerSecond ?? DEFAULT_RERUNS_PER_SECOND);
  return {
    async listDeliveries(request, context) {
      const page = await listDeliveries(deps.orm, companyReach(context, 'viewer'), {
        filter: filterOf(request.filter),
        limit: request.limit,
        pageToken: request.pageToken,
      });
      return { deliveries: page.deliveries.map(deliveryMessage), nextPageToken: page.nextPageToken };
    },
    async getDelivery(request, context) {
      const delivery = await findDelivery(deps.orm, companyReach(context, 'viewer'), request.id);
      // Shown where the execution's payload would be: a body is stored only for flows without doNotLogPayload.
      const stored = delivery.body ? openRequest(deps.keyring, delivery.id, delivery.body) : undefined;
      const body = stored && bodyForFlow(stored.body);
      const withheld = delivery.outcome === 'accepted' && !stored && ['endpoint', 'provider'].includes(delivery.route);
      return {
        delivery: deliveryMessage({ ...delivery, count: delivery.count, hasBody: stored !== undefined }),
        headers: (delivery.headers ?? []).map(([name, value]) => ({ name, value })),
        body: body?.text ?? '',
        bodyEncoding: body?.encoding ?? '',
        query: stored ? redactedQuery(stored.query) : '',
        payloadWithheld: withheld,
      };
    },
    async replayDelivery(request, context) {
      const caller = {
        account: serviceAccountOf(context),
        reveals: payloadReveals(deps.orm, context),
        reach: companyReach(context, 'admin'),
      };
      await pacer.turn(context.signal);
      return replayDelivery(deps, caller, { id: request.id, company: request.company, reveal: request.reveal });
    },
    async replayDeliveries(request, context) {
      const caller = {
        account: serviceAccountOf(context),
        reveals: payloadReveals(deps.orm, context),
        reach: companyReach(context, 'admin'),
      };
      const result = await replayMatching(
        { ...deps, pacer },
        caller,
        {
          filter: filterOf(request.filter),
          dryRun: request.dryRun,
          maxCount: request.maxCount,
          reveal: request.reveal,
        },
        context.signal,
      );
      return {
        matched: result.matched,
        deliveries: result.deliveries.map((delivery) =>
          deliveryMessage({ ...delivery, count: delivery.count, hasBody: delivery.body != null }),
        ),
        started: result.started,
        skipped: result.skipped,
      };
    },
  };
}

function filterOf(filter: DeliveryFilterMessage | undefined): DeliveryFilter {
  return {
    company: filter?.company || undefined,
    outcome: filter?.outcome || undefined,
    reason: filter?.reason || undefined,
    caller: filter?.caller || undefined,
    activity: filter?.activity || undefined,
    status: filter?.status || undefined,
    route: filter?.route || undefined,
    since: filter?.since && timestampDate(filter.since),
    until: filter?.until && timestampDate(filter.until),
  };
}

function deliveryMessage(delivery: ListedDelivery) {
  return create(DeliverySchema, {
    id: delivery.id,
    receivedAt: timestampFromDate(delivery.receivedAt),
    route: delivery.route,
    company: delivery.company ?? '',
    activity: delivery.activity ?? '',
    caller: delivery.caller ?? '',
    sender: delivery.sender ?? '',
    outcome: delivery.outcome,
    reason: delivery.reason ?? '',
    status: delivery.status,
    answer: delivery.answer ?? '',
    latencyMs: delivery.latencyMs ?? 0,
    requestId: delivery.requestId ?? '',
    executionId: delivery.executionId ?? '',
    count: delivery.count,
    hasBody: delivery.hasBody,
  });
}
