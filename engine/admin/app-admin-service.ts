// The AppAdminService and UserAdminService Connect implementations: adapters
// between the RPC messages and the caller-registration operations.
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../cache/change-feed.ts';
import { AppSchema, AppState, type App, type AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import type { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { InvalidArgumentError } from '../errors.ts';
import { listApplications, registerApplication, setApplicationState, type AppView } from './applications.ts';
import { regenerateAccessKey, setServiceUserEnabled } from './service-users.ts';

export function createAppAdminService(deps: { orm: MikroORM; changes: ChangeAnnouncer }): ServiceImpl<typeof AppAdminService> {
  const fork = () => deps.orm.em.fork();
  return {
    async registerApp(request) {
      const { view, created } = await registerApplication(fork(), deps.changes, {
        clientId: request.clientId,
        description: request.description || undefined,
        company: request.company || undefined,
        permissionSet: request.permissionSet || undefined,
        consentGranted: request.consentGranted,
        enabled: request.state === AppState.UNSPECIFIED ? undefined : request.state === AppState.ENABLED,
      });
      return { app: appMessage(view), created };
    },
    async setAppState(request) {
      if (request.state === AppState.UNSPECIFIED) throw new InvalidArgumentError('state: ENABLED or DISABLED');
      return { app: appMessage(await setApplicationState(fork(), deps.changes, request.clientId, request.state === AppState.ENABLED)) };
    },
    async listApps() {
      return { apps: (await listApplications(fork())).map(appMessage) };
    },
  };
}

export function createUserAdminService(deps: { orm: MikroORM; changes: ChangeAnnouncer }): ServiceImpl<typeof UserAdminService> {
  const fork = () => deps.orm.em.fork();
  return {
    async regenerateUserKey(request) {
      const expiresAt = request.accessKeyExpiresAt ? timestampDate(request.accessKeyExpiresAt) : undefined;
      const { user, accessKey } = await regenerateAccessKey(fork(), deps.changes, request.name, expiresAt);
      return { name: user.name, accessKey, accessKeyExpiresAt: user.accessKeyExpiresAt ? timestampFromDate(user.accessKeyExpiresAt) : undefined };
    },
    async setUserState(request) {
      const user = await setServiceUserEnabled(fork(), deps.changes, request.name, request.enabled);
      return { name: user.name, enabled: user.enabled };
    },
  };
}

function appMessage({ app, permissionSets }: AppView): App {
  return create(AppSchema, {
    clientId: app.clientId,
    description: app.description,
    state: app.enabled ? AppState.ENABLED : AppState.DISABLED,
    consentGranted: app.consentGranted,
    permissionSets,
    createdAt: timestampFromDate(app.createdAt),
  });
}
