// DeliveryLogService: the facade's reports into the delivery log
// (engine/domain/deliveries/delivery-intake.ts). Behind the gate with the invoke
// scope, like WebhookService: the facade's own account (one that forwards
// callers) reports what it answered, for the companies it may call for.
import type { ServiceImpl } from '@connectrpc/connect';
import type { DeliveryLogService } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { PermissionDeniedError } from '../../errors.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import {
  createDeliveryIntake,
  reportedCompanies,
  type DeliveryIntakeDeps,
} from '../../domain/deliveries/delivery-intake.ts';
import { FloodBound, type FloodLimits } from '../../domain/deliveries/flood-bound.ts';
import type { EngineMetrics } from '../../domain/metrics/engine-metrics.ts';

export interface DeliveryLogServiceDeps extends DeliveryIntakeDeps {
  /** FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE and FLOWHOOK_DELIVERY_REFUSED_PER_MINUTE. */
  deliveryBound: FloodLimits;
  metrics?: Pick<EngineMetrics, 'deliveries'>;
}

export function createDeliveryLogService(deps: DeliveryLogServiceDeps): ServiceImpl<typeof DeliveryLogService> {
  // One bound per engine process, shared by every facade that reports to it.
  const record = createDeliveryIntake(deps, new FloodBound(deps.deliveryBound));
  return {
    async recordDeliveries(request, context) {
      const account = serviceAccountOf(context);
      // What a facade answered: an invoke account that only calls flows itself has no deliveries to report.
      if (!account.forwardsCallers)
        throw new PermissionDeniedError(
          `Service account "${account.name}" does not forward callers: only a facade's account reports deliveries`,
        );
      // An account bound to companies reports theirs only: it cannot write another company's log (or its alerts' counts).
      const allowed = account.allCompanies ? undefined : await reportedCompanies(deps.orm, account.companyIds);
      const taken = await record(
        allowed ? request.deliveries.filter((report) => allowed.has(report.company)) : request.deliveries,
      );
      deps.metrics?.deliveries.taken(taken.stored, taken.counted);
      return taken;
    },
  };
}
