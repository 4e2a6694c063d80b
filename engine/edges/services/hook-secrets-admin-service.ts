// HookSecretAdminService: an adapter between the RPC messages and the hook
// secret operations (hook-secrets.ts), one EntityManager fork per call. Only
// SetHookSecret with generate ever carries a secret back, and only that once.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  HookSecretSchema as HookSecretMessageSchema,
  type HookSecret,
  type HookSecretAdminService,
} from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import {
  deleteHookSecret,
  listHookSecrets,
  setHookSecret,
  type HookSecretSummary,
} from '../../domain/flows/hook-secrets.ts';
import type { AdminStoreDeps } from './admin-deps.ts';
import { optionalTimestamp } from './admin-messages.ts';

export interface HookSecretAdminDeps extends AdminStoreDeps {
  keyring: SecretKeyring;
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
        previousValidUntil: optionalTimestamp(result.previousValidUntil),
      };
    },
    async listHookSecrets(request) {
      return { secrets: (await listHookSecrets(fork(), request.company)).map(hookSecretMessage) };
    },
    async deleteHookSecret(request) {
      await deleteHookSecret(fork(), deps.changes, request.company, request.activity);
      return {};
    },
  };
}

function hookSecretMessage(secret: HookSecretSummary): HookSecret {
  return create(HookSecretMessageSchema, {
    company: secret.company,
    activity: secret.activity,
    updatedAt: timestampFromDate(secret.updatedAt),
    previousValidUntil: optionalTimestamp(secret.previousValidUntil),
    routePublished: secret.routePublished,
  });
}
