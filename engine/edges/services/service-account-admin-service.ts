// The ServiceAccountAdminService Connect implementation: an adapter between
// the RPC messages and the account operations in service-accounts.ts.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  ServiceAccountInfoSchema,
  type ServiceAccountAdminService,
} from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import type { ServiceAccount } from '../../infrastructure/storage/entities.ts';
import {
  createServiceAccount,
  deleteServiceAccount,
  listServiceAccounts,
  requireServiceAccount,
  rotateServiceAccountToken,
  type ServiceAccountView,
} from '../../domain/callers/service-accounts.ts';
import { setCallerEnabled } from '../../domain/callers/caller-changes.ts';
import type { AdminStoreDeps } from './admin-deps.ts';
import { optionalTimestamp } from './admin-messages.ts';

export function createServiceAccountAdminService(deps: AdminStoreDeps): ServiceImpl<typeof ServiceAccountAdminService> {
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
      const em = fork();
      const account = await requireServiceAccount(em, request.name);
      await setCallerEnabled(em, deps.changes, account, request.enabled);
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
    rotatedAt: optionalTimestamp(account.rotatedAt),
  });
}
