// The console's rules (console-rpc-policy.ts) for people and machines and for
// a company's hook secrets. Service users, OAuth applications and service
// accounts belong to the deployment, not to one company: a user's key, state
// or deletion, an application's consent and state, a service account's token
// act wherever they hold, so reading them needs a role in every company and
// changing them the admin role in every company. A grant is the exception: it
// names its company, so the admin of that company may give or take it (as
// FlowAdminService.CreateUser, a user with a first grant, already was).
// Hook secrets are a company's own.
import type { RpcRule } from './console-rpc-policy.ts';

const EVERYWHERE = 'every-company' as const;

export const USER_ADMIN_RULES: Record<string, RpcRule> = {
  ListUsers: { role: 'viewer', company: EVERYWHERE },
  GetUser: { role: 'viewer', company: EVERYWHERE },
  GrantUserPermission: { role: 'admin', company: { request: 'company' } },
  RevokeUserPermission: { role: 'admin', company: { request: 'company' } },
  RegenerateUserKey: { role: 'admin', company: EVERYWHERE },
  SetUserState: { role: 'admin', company: EVERYWHERE },
  DeleteUser: { role: 'admin', company: EVERYWHERE },
};

export const APP_ADMIN_RULES: Record<string, RpcRule> = {
  ListApps: { role: 'viewer', company: EVERYWHERE },
  RegisterApp: { role: 'admin', company: EVERYWHERE },
  SetAppState: { role: 'admin', company: EVERYWHERE },
  RevokeAppConsent: { role: 'admin', company: EVERYWHERE },
};

export const SERVICE_ACCOUNT_ADMIN_RULES: Record<string, RpcRule> = {
  ListServiceAccounts: { role: 'viewer', company: EVERYWHERE },
  CreateServiceAccount: { role: 'admin', company: EVERYWHERE },
  RotateServiceAccountToken: { role: 'admin', company: EVERYWHERE },
  SetServiceAccountState: { role: 'admin', company: EVERYWHERE },
  DeleteServiceAccount: { role: 'admin', company: EVERYWHERE },
};

export const HOOK_SECRET_ADMIN_RULES: Record<string, RpcRule> = {
  ListHookSecrets: { role: 'viewer', company: { request: 'company' } },
  SetHookSecret: { role: 'admin', company: { request: 'company' } },
  DeleteHookSecret: { role: 'admin', company: { request: 'company' } },
};
