// Which admin RPCs the audit log records, and which of their request fields
// it copies. A closed allowlist in both directions: a method not listed here
// (every read, and any method added later) is not recorded until someone adds
// it, and a field not listed is never copied — so a new request field that
// carries a secret cannot reach the audit table by accident. Field paths are
// the request's proto3 JSON names (camelCase), e.g. `flow.company`.
import { AlertService } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { AppAdminService } from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { ConnectionAdminService } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ConsoleSessionAdminService } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { DeliveryService } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { HookSecretAdminService } from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { SecretStoreAdminService } from '../../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { ServiceAccountAdminService } from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { UserAdminService } from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { RetentionAdminService } from '../../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { methodEntry, methodTable, type MethodTable } from '../../../common/rpc-method-table.ts';

export interface AuditedMethod {
  /** `<kind>.<verb>`, e.g. `flow.publish`; `--action flow` lists every `flow.*`. */
  action: string;
  /** The field naming the company the action is about. */
  company?: string;
  /** The field naming what within it (flow, activity, user, app, connection, account, execution). */
  target?: string;
  /** Further settings worth knowing afterwards (a version, a scope, a state). */
  details?: readonly string[];
  /**
   * What a detail is when the request leaves it out: proto3 JSON omits a
   * field at its default, so a `false` that matters (a disable) is said here.
   */
  implicit?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Field names that may hold a secret or caller data. No allowlisted path may
 * contain one (a unit test checks), whatever the method — a second lock on the
 * same door, for whoever extends the list below.
 */
export const FORBIDDEN_FIELD_WORDS = [
  'secret',
  'key',
  'token',
  'password',
  'payload',
  'value',
  'settings',
  'credential',
  'certificate',
] as const;

const FLOW_ADMIN: Record<string, AuditedMethod> = {
  CreateCompany: { action: 'company.create', company: 'name' },
  ApplyFlow: { action: 'flow.apply', company: 'flow.company', target: 'flow.name', details: ['publish'] },
  PublishFlow: { action: 'flow.publish', company: 'company', target: 'name', details: ['version'] },
  UnpublishFlow: { action: 'flow.unpublish', company: 'company', target: 'name' },
  PauseFlow: { action: 'flow.pause', company: 'company', target: 'name' },
  ResumeFlow: { action: 'flow.resume', company: 'company', target: 'name' },
  // The per-activity webhook secret; the new one is in the response, which is never read here.
  RotateSecret: { action: 'webhook-secret.rotate', company: 'company', target: 'activity', details: ['name'] },
  // One call through the endpoint, with the secret and caller as given (neither is copied).
  TryFlow: { action: 'flow.try', company: 'company', target: 'activity' },
  CreateUser: { action: 'user.create', company: 'company', target: 'name', details: ['permissionSet', 'allCompanies'] },
};

const APP_ADMIN: Record<string, AuditedMethod> = {
  RegisterApp: {
    action: 'app.register',
    company: 'company',
    target: 'clientId',
    details: ['permissionSet', 'allCompanies', 'consentGranted', 'state', 'issuer', 'tenantId', 'anyTenant'],
  },
  SetAppState: { action: 'app.set-state', target: 'clientId', details: ['state', 'issuer'] },
  RevokeAppConsent: { action: 'app.revoke-consent', target: 'clientId', details: ['issuer'] },
};

const USER_ADMIN: Record<string, AuditedMethod> = {
  GrantUserPermission: {
    action: 'user.grant',
    company: 'company',
    target: 'name',
    details: ['permissionSet', 'allCompanies'],
  },
  RevokeUserPermission: { action: 'user.revoke', company: 'company', target: 'name', details: ['permissionSet'] },
  DeleteUser: { action: 'user.delete', target: 'name' },
  RegenerateUserKey: { action: 'user.regenerate-key', target: 'name', details: ['clearExpiry'] },
  SetUserState: { action: 'user.set-state', target: 'name', details: ['enabled'], implicit: { enabled: false } },
};

const CONNECTION_ADMIN: Record<string, AuditedMethod> = {
  SetConnection: { action: 'connection.set', company: 'company', target: 'name' },
  DeleteConnection: { action: 'connection.delete', company: 'company', target: 'name', details: ['force'] },
  SetCompanyEgress: { action: 'company.set-egress', company: 'company', details: ['allow', 'clear'] },
};

const SECRET_STORE_ADMIN: Record<string, AuditedMethod> = {
  RotateKey: { action: 'secret-store.rotate-key' },
};

const SERVICE_ACCOUNT_ADMIN: Record<string, AuditedMethod> = {
  CreateServiceAccount: {
    action: 'service-account.create',
    target: 'name',
    details: ['scope', 'companies', 'allCompanies', 'forwardsCallers'],
  },
  SetServiceAccountState: {
    action: 'service-account.set-state',
    target: 'name',
    details: ['enabled'],
    implicit: { enabled: false },
  },
  RotateServiceAccountToken: { action: 'service-account.rotate-token', target: 'name' },
  DeleteServiceAccount: { action: 'service-account.delete', target: 'name' },
};

const HOOK_SECRET_ADMIN: Record<string, AuditedMethod> = {
  SetHookSecret: {
    action: 'hook-secret.set',
    company: 'company',
    target: 'activity',
    details: ['generate', 'overlapSeconds'],
  },
  DeleteHookSecret: { action: 'hook-secret.delete', company: 'company', target: 'activity' },
};

const EXECUTION: Record<string, AuditedMethod> = {
  RerunExecution: { action: 'execution.rerun', company: 'company', target: 'executionId', details: ['sameVersion'] },
  RerunExecutions: {
    action: 'execution.rerun-many',
    company: 'company',
    target: 'activity',
    details: [
      'statuses',
      'since',
      'until',
      'dryRun',
      'maxCount',
      'sameVersion',
      'flowName',
      'flowVersion',
      'outcome',
      'caller',
    ],
  },
  // A read, but of what doNotLogPayload keeps out of every log: who decrypted it is on record.
  RevealExecutionPayload: { action: 'execution.reveal-payload', company: 'company', target: 'executionId' },
};

const DELIVERY: Record<string, AuditedMethod> = {
  // A stored call run again as its original caller (a reveal, when it takes a doNotLogPayload payload, is filed too).
  ReplayDelivery: { action: 'delivery.replay', company: 'company', target: 'id', details: ['reveal'] },
  ReplayDeliveries: {
    action: 'delivery.replay-many',
    company: 'filter.company',
    target: 'filter.activity',
    details: [
      'filter.outcome',
      'filter.reason',
      'filter.caller',
      'filter.status',
      'filter.route',
      'filter.since',
      'filter.until',
      'dryRun',
      'maxCount',
      'reveal',
    ],
  },
};

const CONSOLE_SESSION_ADMIN: Record<string, AuditedMethod> = {
  // Whose sessions an admin ended (the person), or every session.
  EndConsoleSessions: { action: 'console-session.end', target: 'person', details: ['all'] },
};

const ALERT: Record<string, AuditedMethod> = {
  SetAlert: {
    action: 'alert.set',
    company: 'rule.company',
    target: 'rule.name',
    details: ['rule.condition', 'rule.flow', 'rule.reason', 'rule.threshold', 'rule.windowSeconds', 'rule.connection'],
  },
  // A message sent now through the connection: who sent one is on record.
  TestAlert: { action: 'alert.test', company: 'company', target: 'name' },
  DeleteAlert: { action: 'alert.delete', company: 'company', target: 'name' },
};

const RETENTION_ADMIN: Record<string, AuditedMethod> = {
  // An erasure request (its dry run too: who looked for whose data is on record), by company or by caller.
  PurgeSubject: {
    action: 'retention.purge',
    company: 'company',
    target: 'caller',
    details: ['dryRun'],
    implicit: { dryRun: false },
  },
};

export const AUDITED_METHODS: MethodTable<AuditedMethod> = methodTable([
  [FlowAdminService, FLOW_ADMIN],
  [AppAdminService, APP_ADMIN],
  [UserAdminService, USER_ADMIN],
  [ConnectionAdminService, CONNECTION_ADMIN],
  [SecretStoreAdminService, SECRET_STORE_ADMIN],
  [ServiceAccountAdminService, SERVICE_ACCOUNT_ADMIN],
  [HookSecretAdminService, HOOK_SECRET_ADMIN],
  [ExecutionService, EXECUTION],
  [DeliveryService, DELIVERY],
  [ConsoleSessionAdminService, CONSOLE_SESSION_ADMIN],
  [RetentionAdminService, RETENTION_ADMIN],
  [AlertService, ALERT],
]);

/** The entry for `service`/`method` (proto names), or undefined: not recorded. */
export function auditedMethod(service: string, method: string): AuditedMethod | undefined {
  return methodEntry(AUDITED_METHODS, service, method);
}

/** Whether a field path names something that may be secret (then it is never copied). */
export function isForbiddenField(path: string): boolean {
  const lower = path.toLowerCase();
  return FORBIDDEN_FIELD_WORDS.some((word) => lower.includes(word));
}
