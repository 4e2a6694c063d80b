// OutboundService: what a worker's httpRequest activity needs at run time —
// the company's egress list, when the step names one the connection with
// its decrypted secret, and when the request carries waitForCallback URLs a
// fresh one per step (callbacks/callback-urls.ts). Records-scope accounts only
// (rpc/service-account-gate.ts), with the grant of a running execution of that
// company (security/execution-access.ts): a records account created for a
// company, or a grant read from a closed execution's history, gets nothing. The
// secret and the URLs leave the engine in this response and nowhere else, and are never logged.
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import { requireLiveGrant } from '../../domain/executions/execution-access.ts';
import type { ExecutionLiveness } from '../../domain/executions/execution-liveness.ts';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import {
  CompanyEgressSchema,
  ConnectionSettingsSchema,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import {
  ResolvedConnectionSchema,
  type OutboundService,
  type ResolvedConnection,
  type ResolveOutboundRequest,
} from '../../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { getCompanyEgress } from '../../domain/connections/company-egress.ts';
import { resolveConnection } from '../../domain/connections/connections.ts';
import { mintCallbackUrls } from '../../domain/callbacks/callback-urls.ts';

export interface OutboundDeps {
  orm: MikroORM;
  keyring: SecretKeyring;
  logger: Logger;
  grantKey: Buffer;
  liveness: ExecutionLiveness;
  /** Where callback URLs point: the facade as callers see it. */
  publicUrl: string;
  instance: string;
}

export function createOutboundService(deps: OutboundDeps): ServiceImpl<typeof OutboundService> {
  return {
    async resolveOutbound(request, context) {
      const em = deps.orm.em.fork();
      // Only for a running execution the engine started, of that company: a worker's token cannot fetch other companies' secrets.
      const access = { company: request.company, executionId: request.executionId, grant: request.executionGrant };
      await requireLiveGrant(
        deps,
        serviceAccountOf(context),
        access,
        'connection secrets, egress lists and callback URLs are handed out',
      );
      const egress = create(CompanyEgressSchema, await getCompanyEgress(em, request.company));
      const connection = request.connection ? await connectionFor(deps, em, request) : undefined;
      // Last, so a request refused for its connection leaves no waits behind.
      const callbackUrls = request.callbackSteps.length > 0 ? await mintCallbackUrls(em, deps, request) : {};
      if (request.callbackSteps.length > 0)
        deps.logger.debug(
          { company: request.company, executionId: request.executionId, steps: Object.keys(callbackUrls) },
          'callback urls handed to an activity',
        );
      return { egress, connection, callbackUrls };
    },
  };
}

async function connectionFor(
  deps: OutboundDeps,
  em: EntityManager,
  request: ResolveOutboundRequest,
): Promise<ResolvedConnection> {
  const resolved = await resolveConnection(em, deps.keyring, request.company, request.connection);
  deps.logger.debug(
    {
      company: request.company,
      connection: resolved.name,
      version: resolved.version,
      caller: request.caller,
      executionId: request.executionId,
    },
    'connection handed to an activity',
  );
  return create(ResolvedConnectionSchema, {
    name: resolved.name,
    settings: create(ConnectionSettingsSchema, { type: resolved.type, ...resolved.settings }),
    version: resolved.version,
    secret: resolved.secret,
  });
}
