// ConnectionAdminService and SecretStoreAdminService: adapters between the RPC
// messages and the connection, egress and key-rotation operations, one
// EntityManager fork per call. Responses never carry a secret value.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import {
  CompanyEgressSchema,
  ConnectionSchema as ConnectionMessageSchema,
  ConnectionSettingsSchema,
  type ConnectionAdminService,
  type ConnectionSettings,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { SecretStoreAdminService } from '../../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { kindSettingsOf, type ConnectionSettingsInput } from '../../../flow/index.ts';
import { InvalidArgumentError } from '../../errors.ts';
import { rotateSecretsKey } from '../../infrastructure/secret-store/key-rotation.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import type { Connection } from '../../infrastructure/storage/entities.ts';
import { connectionKindInfos } from '../../domain/connections/connection-kind-infos.ts';
import { getCompanyEgress, setCompanyEgress, type CompanyEgress } from '../../domain/connections/company-egress.ts';
import {
  connectionTypeOf,
  deleteConnection,
  fromColumn,
  listConnections,
  publishedFlowsUsing,
  requireConnection,
  setConnection,
} from '../../domain/connections/connections.ts';
import { companyMessages } from './admin-messages.ts';

export interface ConnectionAdminDeps {
  orm: MikroORM;
  keyring: SecretKeyring;
}

export function createConnectionAdminService(deps: ConnectionAdminDeps): ServiceImpl<typeof ConnectionAdminService> {
  const fork = () => deps.orm.em.fork();
  return {
    async setConnection(request) {
      if (!request.settings) throw new InvalidArgumentError('settings are required');
      const em = fork();
      const { connection, created } = await setConnection(em, deps.keyring, {
        company: request.company,
        name: request.name,
        type: request.settings.type,
        settings: settingsInput(request.settings),
        secret: request.secret,
      });
      return { connection: await connectionMessage(em, connection), created };
    },
    async listConnections(request) {
      return { connections: await companyMessages(fork(), request.company, listConnections, connectionMessage) };
    },
    async getConnection(request) {
      const em = fork();
      return { connection: await connectionMessage(em, await requireConnection(em, request.company, request.name)) };
    },
    async deleteConnection(request) {
      await deleteConnection(fork(), request.company, request.name, request.force);
      return {};
    },
    async setCompanyEgress(request) {
      return { egress: egressMessage(await setCompanyEgress(fork(), request.company, request.allow, request.clear)) };
    },
    async getCompanyEgress(request) {
      return { egress: egressMessage(await getCompanyEgress(fork(), request.company)) };
    },
    async listConnectionKinds() {
      return { kinds: connectionKindInfos() };
    },
  };
}

export function createSecretStoreAdminService(deps: ConnectionAdminDeps): ServiceImpl<typeof SecretStoreAdminService> {
  return {
    async rotateKey() {
      return rotateSecretsKey(deps.orm.em.fork(), deps.keyring);
    },
  };
}

export function settingsInput(settings: ConnectionSettings): ConnectionSettingsInput {
  return { baseUrl: settings.baseUrl, allowedHosts: settings.allowedHosts, ...kindSettingsOf(settings) };
}

export function settingsMessage(connection: Connection): ConnectionSettings {
  return create(ConnectionSettingsSchema, { type: connectionTypeOf(connection), ...fromColumn(connection.settings) });
}

async function connectionMessage(em: EntityManager, connection: Connection) {
  await em.populate(connection, ['company']);
  return create(ConnectionMessageSchema, {
    company: connection.company.name,
    name: connection.name,
    settings: settingsMessage(connection),
    version: connection.version,
    keyId: connection.keyId,
    createdAt: timestampFromDate(connection.createdAt),
    updatedAt: timestampFromDate(connection.updatedAt),
    usedByFlows: await publishedFlowsUsing(em, connection.company, connection.name),
  });
}

function egressMessage(egress: CompanyEgress) {
  return create(CompanyEgressSchema, egress);
}
