// The standard gRPC health service (grpc.health.v1.Health), so load
// balancers, Kubernetes gRPC probes, grpc-health-probe and grpcurl can ask the
// engine whether it serves, in the one way they all know. The engine's
// services stand or fall together, so every known service reports what
// isServing() says; the empty name asks about the server as a whole. Following
// the spec, Check refuses an unknown service with NOT_FOUND, while Watch
// answers SERVICE_UNKNOWN and stays open. Watch polls isServing() and sends a
// status only when it changes, until the client goes away.
import { setTimeout as sleep } from 'node:timers/promises';
import { create, type DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
} from '../../../proto/gen/grpc/health/v1/health_pb.js';

export const HEALTH_SERVICE_NAME = Health.typeName;

const WATCH_POLL_MILLISECONDS = 1000;

/**
 * `dependencies`: extra names answered by their own probe (e.g. `flowhook.dependency.postgresql`),
 * so a readiness check can say which dependency is down; they are NOT_SERVING while shutting down too.
 */
export function registerHealth(
  router: ConnectRouter,
  services: DescService[],
  isServing: () => boolean,
  watchPollMilliseconds = WATCH_POLL_MILLISECONDS,
  dependencies: Readonly<Record<string, boolean>> = {},
): void {
  const knownServices = new Set(['', HEALTH_SERVICE_NAME, ...services.map((service) => service.typeName)]);
  const statusOf = (service: string): ServingStatus => {
    if (Object.hasOwn(dependencies, service))
      return isServing() && dependencies[service] ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    if (!knownServices.has(service)) return ServingStatus.SERVICE_UNKNOWN;
    return isServing() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };
  router.service(Health, {
    check(request) {
      const status = statusOf(request.service);
      if (status === ServingStatus.SERVICE_UNKNOWN)
        throw new ConnectError(`unknown service: ${request.service}`, Code.NotFound);
      return create(HealthCheckResponseSchema, { status });
    },
    async *watch(request, context) {
      let sent = statusOf(request.service);
      yield create(HealthCheckResponseSchema, { status: sent });
      while (!context.signal.aborted) {
        try {
          await sleep(watchPollMilliseconds, undefined, { signal: context.signal });
        } catch {
          return; // the client cancelled or the server is shutting down
        }
        const now = statusOf(request.service);
        if (now !== sent) {
          sent = now;
          yield create(HealthCheckResponseSchema, { status: now });
        }
      }
    },
  });
}
