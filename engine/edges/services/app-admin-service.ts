// The AppAdminService and UserAdminService Connect implementations: adapters
// between the RPC messages and the caller-registration operations (the rules
// live in applications.ts, service-users.ts and service-user-grants.ts).
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  AppSchema,
  AppState,
  type App,
  type AppAdminService,
} from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import {
  UserSchema,
  type User,
  type UserAdminService,
} from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { InvalidArgumentError } from '../../errors.ts';
import { companyReach } from '../../domain/callers/company-reach.ts';
import { permissionSetsThatWork } from '../../domain/callers/caller-permission-sets.ts';
import {
  appView,
  listApplications,
  registerApplication,
  requireApplication,
  revokeApplicationConsent,
  type AppView,
} from '../../domain/callers/applications.ts';
import { setCallerEnabled } from '../../domain/callers/caller-changes.ts';
import { grantUserPermission, revokeUserPermission } from '../../domain/callers/service-user-grants.ts';
import {
  deleteServiceUser,
  getServiceUser,
  listServiceUsers,
  regenerateAccessKey,
  requireServiceUser,
  type KeyExpiryChange,
  type ServiceUserView,
} from '../../domain/callers/service-users.ts';
import type { AdminStoreDeps } from './admin-deps.ts';
import { optionalTimestamp } from './admin-messages.ts';

export function createAppAdminService(deps: AdminStoreDeps): ServiceImpl<typeof AppAdminService> {
  const fork = () => deps.orm.em.fork();
  return {
    async registerApp(request) {
      if (request.anyTenant && request.tenantId)
        throw new InvalidArgumentError('give either a tenant or any_tenant, not both');
      const { view, created } = await registerApplication(fork(), deps.changes, {
        clientId: request.clientId,
        issuer: request.issuer,
        tenantId: request.anyTenant ? null : request.tenantId || undefined,
        description: request.description || undefined,
        company: request.company || undefined,
        allCompanies: request.allCompanies,
        permissionSet: request.permissionSet || undefined,
        consentGranted: request.consentGranted,
        enabled: request.state === AppState.UNSPECIFIED ? undefined : request.state === AppState.ENABLED,
      });
      return { app: appMessage(view), created };
    },
    async setAppState(request) {
      if (request.state === AppState.UNSPECIFIED) throw new InvalidArgumentError('state: ENABLED or DISABLED');
      const em = fork();
      const app = await requireApplication(em, request.clientId, request.issuer || undefined);
      await setCallerEnabled(em, deps.changes, app, request.state === AppState.ENABLED);
      return { app: appMessage(await appView(em, app)) };
    },
    async revokeAppConsent(request) {
      const { view, wasGranted } = await revokeApplicationConsent(
        fork(),
        deps.changes,
        request.clientId,
        request.issuer || undefined,
      );
      return { app: appMessage(view), wasGranted };
    },
    async listApps() {
      return { apps: (await listApplications(fork())).map(appMessage) };
    },
  };
}

export function createUserAdminService(deps: AdminStoreDeps): ServiceImpl<typeof UserAdminService> {
  const fork = () => deps.orm.em.fork();
  return {
    async listUsers() {
      const now = new Date();
      return { users: (await listServiceUsers(fork())).map((view) => userMessage(view, now)) };
    },
    async getUser(request) {
      return { user: userMessage(await getServiceUser(fork(), request.name)) };
    },
    async grantUserPermission(request, context) {
      const { view, alreadyGranted, grant } = await grantUserPermission(
        fork(),
        deps.changes,
        {
          name: request.name,
          company: request.company,
          permissionSet: request.permissionSet,
          allCompanies: request.allCompanies,
        },
        // The answer speaks of the companies the caller administers (service-user-grants.ts).
        companyReach(context, 'admin'),
      );
      return { user: userMessage(view), alreadyGranted, granted: { ...grant, usable: true } };
    },
    async revokeUserPermission(request, context) {
      const revoke = { name: request.name, company: request.company, permissionSet: request.permissionSet };
      const { view, warnings, grant } = await revokeUserPermission(
        fork(),
        deps.changes,
        revoke,
        companyReach(context, 'admin'),
      );
      return {
        user: userMessage(view),
        warnings,
        revoked: { ...grant, usable: permissionSetsThatWork('service-user').includes(grant.permissionSet) },
      };
    },
    async deleteUser(request) {
      return { user: userMessage(await deleteServiceUser(fork(), deps.changes, request.name)) };
    },
    async regenerateUserKey(request) {
      if (request.accessKeyExpiresAt && request.clearExpiry)
        throw new InvalidArgumentError('give either a new expiry or clear_expiry, not both');
      const expiry: KeyExpiryChange = request.accessKeyExpiresAt
        ? { expiresAt: timestampDate(request.accessKeyExpiresAt) }
        : request.clearExpiry
          ? { clear: true }
          : { keep: true };
      const { user, accessKey } = await regenerateAccessKey(fork(), deps.changes, request.name, expiry);
      return { name: user.name, accessKey, accessKeyExpiresAt: optionalTimestamp(user.accessKeyExpiresAt) };
    },
    async setUserState(request) {
      const em = fork();
      const user = await requireServiceUser(em, request.name);
      await setCallerEnabled(em, deps.changes, user, request.enabled);
      return { name: user.name, enabled: user.enabled };
    },
  };
}

function appMessage({ app, permissionSets }: AppView): App {
  return create(AppSchema, {
    clientId: app.clientId,
    issuer: app.issuer ?? '',
    tenantId: app.tenantId ?? '',
    description: app.description,
    state: app.enabled ? AppState.ENABLED : AppState.DISABLED,
    consentGranted: app.consentGranted,
    permissionSets,
    createdAt: timestampFromDate(app.createdAt),
  });
}

function userMessage({ user, permissionSets }: ServiceUserView, now = new Date()): User {
  const usable = permissionSetsThatWork('service-user');
  const expiresAt = user.accessKeyExpiresAt;
  return create(UserSchema, {
    name: user.name,
    enabled: user.enabled,
    accessKeyExpiresAt: optionalTimestamp(expiresAt),
    accessKeyExpired: expiresAt !== null && expiresAt !== undefined && expiresAt.getTime() <= now.getTime(),
    permissionSets: permissionSets.map((held) => ({ ...held, usable: usable.includes(held.permissionSet) })),
    createdAt: timestampFromDate(user.createdAt),
  });
}
