// The ServiceAccountAdminService Connect implementation: an adapter between
// the RPC messages and the account operations in service-accounts.ts.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../cache/change-feed.ts';
import { ServiceAccountInfoSchema, type ServiceAccountAdminService } from '../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import type { ServiceAccount } from '../storage/entities.ts';
import {
  createServiceAccount,
  deleteServiceAccount,
  listServiceAccounts,
  rotateServiceAccountToken,
  setServiceAccountEnabled,
  type ServiceAccountView,
} from './service-accounts.ts';

export function createServiceAccountAdminService(deps: { orm: MikroORM; changes: ChangeAnnouncer }): ServiceImpl<typeof ServiceAccountAdminService> {
  const fork = () => deps.orm.em.fork();
  const viewOf = async (account: ServiceAccount): Promise<ServiceAccountView> =>
    (await listServiceAccounts(fork())).find((view) => view.account.id === account.id) ?? { account, companies: [] };
  return {
    async createServiceAccount(request) {
      const { view, token } = await createServiceAccount(fork(), deps.changes, {
        name: request.name,
        scope: request.scope,
        companies: request.companies,
        allCompanies: request.allCompanies,
        forwardsCallers: request.forwardsCallers,
      });
      return { account: accountMessage(view), token };
    },
    async listServiceAccounts() {
      return { accounts: (await listServiceAccounts(fork())).map(accountMessage) };
    },
    async setServiceAccountState(request) {
      const account = await setServiceAccountEnabled(fork(), deps.changes, request.name, request.enabled);
      return { account: accountMessage(await viewOf(account)) };
    },
    async rotateServiceAccountToken(request) {
      const { account, token } = await rotateServiceAccountToken(fork(), deps.changes, request.name);
      return { account: accountMessage(await viewOf(account)), token };
    },
    async deleteServiceAccount(request) {
      await deleteServiceAccount(fork(), deps.changes, request.name);
      return {};
    },
  };
}

function accountMessage({ account, companies }: ServiceAccountView) {
  return create(ServiceAccountInfoSchema, {
    name: account.name,
    scope: account.scope,
    companies,
    allCompanies: account.allCompanies,
    forwardsCallers: account.forwardsCallers,
    enabled: account.enabled,
    tokenHint: account.tokenHint,
    createdAt: timestampFromDate(account.createdAt),
    rotatedAt: account.rotatedAt ? timestampFromDate(account.rotatedAt) : undefined,
  });
}
