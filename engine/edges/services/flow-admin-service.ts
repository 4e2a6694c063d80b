// The FlowAdminService Connect implementation: adapters between the RPC
// messages and the admin operations, one EntityManager fork per call.
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CompanySchema,
  FlowSummarySchema,
  ProviderRouteSchema,
  WebhookCallSchema,
  type FlowAdminService,
  type FlowSummary,
} from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  FlowSchema as FlowMessageSchema,
  ResponseMode,
  type FlowJson,
} from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { directSchemeOf, type FlowLimits } from '../../../flow/index.ts';
import {
  FlowVersionSummarySchema,
  type FlowVersionSummary,
} from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import type { Company, Flow, FlowVersion } from '../../infrastructure/storage/entities.ts';
import { InvalidArgumentError } from '../../errors.ts';
import { createCompany, listCompanies } from '../../domain/companies/companies.ts';
import {
  applyFlow,
  flowVersion,
  latestVersion,
  listFlows,
  listFlowVersions,
  publishedEntry,
  requireFlow,
} from '../../domain/flows/flows.ts';
import { flowProblemMessages } from '../../domain/flows/flow-problems.ts';
import { publishFlow, publishProblems, unpublishFlow } from '../../domain/flows/publishing.ts';
import { requireCompany } from '../../domain/companies/companies.ts';
import { tryFlow } from '../../domain/flows/try-flow.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { validateFlow } from '../../../flow/index.ts';
import { rotateSecret } from '../../domain/flows/flow-secrets.ts';
import { createServiceUser } from '../../domain/callers/service-users.ts';
import { hasHookSecret } from '../../domain/flows/hook-secrets.ts';
import { providerRouteUrl, webhookCall } from '../../domain/flows/webhook-call.ts';
import { pauseFlow, resumeFlow, type FlowPauseDeps } from '../../domain/flow-control/flow-pauses.ts';
import type { AdminStoreDeps } from './admin-deps.ts';
import { companyMessages, optionalTimestamp } from './admin-messages.ts';

export interface AdminDeps extends FlowPauseDeps, AdminStoreDeps {
  publicUrl: string;
  instance: string;
  flowLimits: FlowLimits;
  /** Decrypts a connection's credentials for TryFlow. */
  keyring: SecretKeyring;
}

export function createFlowAdminService(deps: AdminDeps): ServiceImpl<typeof FlowAdminService> {
  const fork = () => deps.orm.em.fork();
  const companyMessage = (company: Company) =>
    create(CompanySchema, { name: company.name, createdAt: timestampFromDate(company.createdAt) });

  const setPaused = async (request: { company: string; name: string }, change: typeof pauseFlow) => {
    const em = fork();
    const flow = await requireFlow(em, request.company, request.name);
    await em.populate(flow, ['company']);
    const changed = await change(deps, em, flow);
    return { flow: await summary(em, flow), changed };
  };

  return {
    async createCompany(request) {
      return { company: companyMessage(await createCompany(fork(), request.name)) };
    },
    async listCompanies() {
      return { companies: (await listCompanies(fork())).map(companyMessage) };
    },
    async applyFlow(request) {
      if (!request.flow) throw new InvalidArgumentError('flow is required');
      const definition = toJson(FlowMessageSchema, request.flow) as FlowJson;
      const em = fork();
      const publish = request.publish ? { limits: deps.flowLimits } : undefined;
      const applied = await em.transactional((tx) => applyFlow(tx, definition, publish));
      if (publish) await deps.changes.announce(em, 'flows');
      return {
        flow: await summary(em, applied.flow),
        created: applied.created,
        secret: applied.secret ?? '',
        warnings: applied.warnings,
        newVersion: applied.newVersion,
      };
    },
    async getFlow(request) {
      const em = fork();
      const flow = await requireFlow(em, request.company, request.name);
      const version = await flowVersion(em, flow, request.version);
      const published = await publishedEntry(em, flow);
      return {
        flow: await summary(em, flow),
        definition: fromJson(FlowMessageSchema, version.definition as never),
        webhookCall: published
          ? create(WebhookCallSchema, webhookCall(deps, flow.company.name, published.activity))
          : undefined,
        providerRoute: await providerRoute(em, deps, flow, version.activity, version.definition),
      };
    },
    async listFlows(request) {
      return { flows: await companyMessages(fork(), request.company, listFlows, summary) };
    },
    async publishFlow(request) {
      const em = fork();
      const flow = await requireFlow(em, request.company, request.name);
      const { warnings } = await publishFlow(em, deps.changes, flow, request.version, deps.flowLimits);
      return { flow: await summary(em, flow), warnings };
    },
    async unpublishFlow(request) {
      const em = fork();
      const flow = await requireFlow(em, request.company, request.name);
      await unpublishFlow(em, deps.changes, flow);
      return { flow: await summary(em, flow) };
    },
    pauseFlow: (request) => setPaused(request, pauseFlow),
    resumeFlow: (request) => setPaused(request, resumeFlow),
    async rotateSecret(request) {
      const em = fork();
      const holder = request.name ? { flowName: request.name } : { activity: request.activity };
      const { flow, secret } = await rotateSecret(em, deps.changes, request.company, holder);
      return { flow: await summary(em, flow), secret };
    },
    async checkFlow(request) {
      if (!request.flow) throw new InvalidArgumentError('flow is required');
      const definition = toJson(FlowMessageSchema, request.flow) as FlowJson;
      const companyName = definition.company?.trim() ?? '';
      // Without a company there is nothing to check against: the flow's own rules only.
      if (companyName === '') return { problems: flowProblemMessages(validateFlow(definition, deps.flowLimits)) };
      const em = fork();
      const company = await requireCompany(em, companyName);
      const candidate = { company, flowName: definition.name?.trim() ?? '', versionLabel: '', definition };
      return { problems: flowProblemMessages(await publishProblems(em, candidate, deps.flowLimits)) };
    },
    async listFlowVersions(request) {
      const em = fork();
      const flow = await requireFlow(em, request.company, request.name);
      const publishedVersion = (await publishedEntry(em, flow))?.flowVersion.version;
      return {
        versions: (await listFlowVersions(em, flow)).map((version) => versionSummary(version, publishedVersion)),
      };
    },
    async tryFlow(request) {
      return tryFlow(fork(), deps, request);
    },
    async createUser(request) {
      const { user, accessKey } = await createServiceUser(fork(), deps.changes, {
        name: request.name,
        company: request.company || undefined,
        allCompanies: request.allCompanies,
        permissionSet: request.permissionSet || undefined,
        accessKeyExpiresAt: request.accessKeyExpiresAt ? timestampDate(request.accessKeyExpiresAt) : undefined,
      });
      return { name: user.name, accessKey };
    },
  };
}

/** The card's provider route section: only for a flow whose latest version has `direct`. */
async function providerRoute(
  em: EntityManager,
  base: { publicUrl: string; instance: string },
  flow: Flow,
  activity: string,
  definition: FlowJson,
) {
  const direct = definition.trigger?.webhook?.direct;
  if (!direct) return undefined;
  return create(ProviderRouteSchema, {
    url: providerRouteUrl(base, flow.company.name, activity),
    scheme: directSchemeOf(direct.verify) ?? '',
    hookSecretSet: await hasHookSecret(em, flow.company, activity),
  });
}

async function summary(em: EntityManager, flow: Flow): Promise<FlowSummary> {
  await em.populate(flow, ['company']);
  const version = await latestVersion(em, flow);
  const published = await publishedEntry(em, flow);
  return create(FlowSummarySchema, {
    company: flow.company.name,
    name: flow.name,
    description: version.definition.description ?? '',
    triggerDescription: version.definition.trigger?.webhook?.description ?? '',
    activity: version.activity,
    latestVersion: flow.latestVersion,
    publishedVersion: published?.flowVersion.version ?? 0,
    hasSecret: Boolean(flow.secretHash),
    secretRotatedAt: flow.secretHash ? optionalTimestamp(flow.secretRotatedAt) : undefined,
    updatedAt: timestampFromDate(flow.updatedAt),
    ...(flow.pausedAt && { pausedAt: timestampFromDate(flow.pausedAt) }),
    responseMode: responseModeOf(version.definition),
  });
}

function versionSummary(version: FlowVersion, publishedVersion: number | undefined): FlowVersionSummary {
  return create(FlowVersionSummarySchema, {
    version: version.version,
    activity: version.activity,
    createdAt: timestampFromDate(version.createdAt),
    published: publishedVersion === version.version,
    description: version.definition.description ?? '',
  });
}

/** The trigger's response mode as the enum (flow files spell it by name). */
function responseModeOf(definition: FlowJson): ResponseMode {
  const mode = definition.trigger?.webhook?.responseMode;
  return mode === 'WAIT_FOR_RESPONSE_STEP' ? ResponseMode.WAIT_FOR_RESPONSE_STEP : ResponseMode.INSTANT_RETURN;
}
