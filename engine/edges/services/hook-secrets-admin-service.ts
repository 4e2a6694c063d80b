// HookSecretAdminService: an adapter between the RPC messages and the hook
// secret operations (hook-secrets.ts), one EntityManager fork per call. Only
// SetHookSecret with generate ever carries a secret back, and only that once.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import { HookSecretSchema as HookSecretMessageSchema, type HookSecretAdminService } from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import type { ChangeAnnouncer } from '../cache/change-feed.ts';
import type { SecretKeyring } from '../secrets/secret-keyring.ts';
import { deleteHookSecret, listHookSecrets, setHookSecret } from './hook-secrets.ts';

export interface HookSecretAdminDeps {
  orm: MikroORM;
  keyring: SecretKeyring;
  changes: ChangeAnnouncer;
}

export function createHookSecretAdminService(deps: HookSecretAdminDeps): ServiceImpl<typeof HookSecretAdminService> {
  const fork = () => deps.orm.em.fork();
  return {
    async setHookSecret(request) {
      const result = await setHookSecret(fork(), deps.keyring, deps.changes, {
        company: request.company,
        activity: request.activity,
        secret: request.secret,
        generate: request.generate,
        overlapSeconds: request.overlapSeconds ?? 0,
      });
      return {
        generatedSecret: result.generatedSecret ?? '',
        previousValidUntil: result.previousValidUntil ? timestampFromDate(result.previousValidUntil) : undefined,
      };
    },
    async listHookSecrets(request) {
      const secrets = await listHookSecrets(fork(), request.company);
      return {
        secrets: secrets.map((secret) =>
          create(HookSecretMessageSchema, {
            company: secret.company,
            activity: secret.activity,
            updatedAt: timestampFromDate(secret.updatedAt),
            previousValidUntil: secret.previousValidUntil ? timestampFromDate(secret.previousValidUntil) : undefined,
            routePublished: secret.routePublished,
          }),
        ),
      };
    },
    async deleteHookSecret(request) {
      await deleteHookSecret(fork(), deps.changes, request.company, request.activity);
      return {};
    },
  };
}
