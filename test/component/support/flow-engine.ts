// An engine in memory that keeps one flow, as FlowAdminService serves it to the
// card: GetFlow answers what was last applied, ApplyFlow stores a new version
// (and publishes it when asked), RotateSecret and UnpublishFlow answer as the
// engine does. A test may give CheckFlow's problems and make ApplyFlow refuse.
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import {
  FlowAdminService,
  FlowSummarySchema,
  type FlowProblem,
} from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { FlowSchema, type FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { COMPANY } from './console-harness.tsx';

/** The flow the tests open: published once (v1), with its secret, answering at once. */
export const STORED_FLOW: FlowJson = {
  company: COMPANY,
  name: 'orders',
  description: 'Takes orders',
  trigger: {
    webhook: {
      description: 'An order arrives',
      activity: 'shop.orders',
      responseMode: 'INSTANT_RETURN',
      defaultResponseStatusCode: 200,
      defaultResponseContentType: 'application/json',
    },
  },
  steps: [
    { respond: { description: 'Acknowledge', statusCode: 200, contentType: 'application/json', body: '{"ok": true}' } },
  ],
};

export const ROTATED_SECRET = 'rotated-secret-0123456789abcdefgh';

export interface FlowEngineOptions {
  /** What CheckFlow finds, for the draft it is given. */
  problems?(flow: FlowJson): FlowProblem[];
  /** ApplyFlow's refusal, when set. */
  refuseApply?: string;
}

export function flowEngine(
  initial: FlowJson = STORED_FLOW,
  options: FlowEngineOptions = {},
): (router: ConnectRouter) => void {
  let definition = fromJson(FlowSchema, initial as never);
  let latestVersion = 1;
  let publishedVersion = 1;
  const summary = () =>
    create(FlowSummarySchema, {
      company: definition.company,
      name: definition.name,
      description: definition.description,
      activity: definition.trigger?.kind.case === 'webhook' ? definition.trigger.kind.value.activity : '',
      latestVersion,
      publishedVersion,
      hasSecret: true,
    });
  return (router) =>
    router.service(FlowAdminService, {
      getFlow: () => ({ flow: summary(), definition }),
      checkFlow: (request) => ({
        problems: request.flow ? (options.problems?.(toJson(FlowSchema, request.flow) as FlowJson) ?? []) : [],
      }),
      applyFlow: (request) => {
        if (options.refuseApply) throw new ConnectError(options.refuseApply, Code.PermissionDenied);
        definition = request.flow!;
        latestVersion += 1;
        if (request.publish) publishedVersion = latestVersion;
        return { flow: summary(), newVersion: true, created: false, secret: '', warnings: [] };
      },
      rotateSecret: () => ({ flow: summary(), secret: ROTATED_SECRET }),
      unpublishFlow: () => {
        publishedVersion = 0;
        return { flow: summary() };
      },
    });
}
