// Which console role each RPC needs, and in which company: a closed table,
// like the service account gate's scopes — an RPC not listed here is refused
// on the console's listener, so a new admin RPC stays closed to browsers
// until someone decides who may call it. The company comes from the request
// (a field path, in protobuf-es property names), from the answer (an
// execution names its company only once read), or the call needs the role in
// every company. Pure.
import { AlertService } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { AuditService } from '../../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { DeliveryService } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { ConnectionAdminService } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ConsoleSessionAdminService } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { AppAdminService } from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { HookSecretAdminService } from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { ServiceAccountAdminService } from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { UserAdminService } from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import {
  APP_ADMIN_RULES,
  HOOK_SECRET_ADMIN_RULES,
  SERVICE_ACCOUNT_ADMIN_RULES,
  USER_ADMIN_RULES,
} from './console-people-rules.ts';
import {
  atLeast,
  EVERY_COMPANY,
  roleIn,
  type ConsoleRoleName,
  type RoleGrants,
} from '../../domain/callers/console-roles.ts';

export type CompanyOfCall =
  /** A request field naming the company; when empty, the call is about every company. */
  | { request: string }
  /**
   * A field of the answer (an execution's company): the service checks it against the person's
   * roles before it reads anything (security/company-reach.ts); checked again here on the answer.
   */
  | { response: string }
  /** A listing the console cuts to the companies the person sees (ListCompanies). */
  | 'filtered'
  /** Nothing names a company: the call needs the role in every company. */
  | 'every-company'
  /** Nothing about any company (e.g. the connection kinds): the role in some company. */
  | 'any-company';

export interface RpcRule {
  role: ConsoleRoleName;
  company: CompanyOfCall;
}

const FLOW_ADMIN: Record<string, RpcRule> = {
  ListCompanies: { role: 'viewer', company: 'filtered' },
  ListFlows: { role: 'viewer', company: { request: 'company' } },
  GetFlow: { role: 'viewer', company: { request: 'company' } },
  ListFlowVersions: { role: 'viewer', company: { request: 'company' } },
  CheckFlow: { role: 'viewer', company: { request: 'flow.company' } },
  ApplyFlow: { role: 'editor', company: { request: 'flow.company' } },
  PublishFlow: { role: 'editor', company: { request: 'company' } },
  UnpublishFlow: { role: 'editor', company: { request: 'company' } },
  RotateSecret: { role: 'editor', company: { request: 'company' } },
  TryFlow: { role: 'editor', company: { request: 'company' } },
  CreateCompany: { role: 'admin', company: 'every-company' },
  CreateUser: { role: 'admin', company: { request: 'company' } },
};

// A re-run changes something, so its company must be known before it runs: the console names it
// in the request (the service checks it is the execution's). Without it, editor in every company.
const EXECUTIONS: Record<string, RpcRule> = {
  ListExecutions: { role: 'viewer', company: { request: 'company' } },
  GetExecution: { role: 'viewer', company: { response: 'execution.company' } },
  GetExecutionOverview: { role: 'viewer', company: { request: 'company' } },
  RerunExecution: { role: 'editor', company: { request: 'company' } },
  RerunExecutions: { role: 'editor', company: { request: 'company' } },
  // A doNotLogPayload payload is decrypted for those who may decrypt it in the Temporal UI too: admins.
  RevealExecutionPayload: { role: 'admin', company: { request: 'company' } },
};

const CONNECTIONS: Record<string, RpcRule> = {
  ListConnections: { role: 'viewer', company: { request: 'company' } },
  GetConnection: { role: 'viewer', company: { request: 'company' } },
  GetCompanyEgress: { role: 'viewer', company: { request: 'company' } },
  SetConnection: { role: 'admin', company: { request: 'company' } },
  DeleteConnection: { role: 'admin', company: { request: 'company' } },
  SetCompanyEgress: { role: 'admin', company: { request: 'company' } },
  ListConnectionKinds: { role: 'viewer', company: 'any-company' },
};

// Alerts belong to a company: its viewers see them; its admins change them, and send a test (it
// goes out through a connection, which admins manage).
const ALERTS: Record<string, RpcRule> = {
  ListAlerts: { role: 'viewer', company: { request: 'company' } },
  GetAlert: { role: 'viewer', company: { request: 'company' } },
  SetAlert: { role: 'admin', company: { request: 'rule.company' } },
  TestAlert: { role: 'admin', company: { request: 'company' } },
  DeleteAlert: { role: 'admin', company: { request: 'company' } },
};

const AUDIT: Record<string, RpcRule> = {
  ListAuditEvents: { role: 'admin', company: { request: 'company' } },
};

// Sessions belong to the deployment, not to a company: who is signed in, and ending anyone's session,
// is for admins of every company. (An admin of one company ending the session of a person with roles
// elsewhere would reach beyond their company; one who may not see all sessions gets none.)
const SESSIONS: Record<string, RpcRule> = {
  ListConsoleSessions: { role: 'admin', company: 'every-company' },
  EndConsoleSessions: { role: 'admin', company: 'every-company' },
};

// The delivery log reads like executions (a delivery names its company only once read); a replay runs a
// stored call again as its original caller, so it is for admins of the company, which the console names.
const DELIVERIES: Record<string, RpcRule> = {
  ListDeliveries: { role: 'viewer', company: { request: 'filter.company' } },
  GetDelivery: { role: 'viewer', company: { response: 'delivery.company' } },
  ReplayDelivery: { role: 'admin', company: { request: 'company' } },
  ReplayDeliveries: { role: 'admin', company: { request: 'filter.company' } },
};

export const CONSOLE_RPC_RULES: ReadonlyMap<string, Readonly<Record<string, RpcRule>>> = new Map([
  [FlowAdminService.typeName, FLOW_ADMIN],
  [ExecutionService.typeName, EXECUTIONS],
  [ConnectionAdminService.typeName, CONNECTIONS],
  [AuditService.typeName, AUDIT],
  [UserAdminService.typeName, USER_ADMIN_RULES],
  [AppAdminService.typeName, APP_ADMIN_RULES],
  [ServiceAccountAdminService.typeName, SERVICE_ACCOUNT_ADMIN_RULES],
  [HookSecretAdminService.typeName, HOOK_SECRET_ADMIN_RULES],
  [ConsoleSessionAdminService.typeName, SESSIONS],
  [DeliveryService.typeName, DELIVERIES],
  [AlertService.typeName, ALERTS],
]);

/** The services the console's listener serves with a rule table (ConsoleService, the session itself, aside). */
export const CONSOLE_SERVICES = [
  FlowAdminService,
  ExecutionService,
  ConnectionAdminService,
  AuditService,
  AlertService,
] as const;

/** People, machines and hook secrets (console-people-rules.ts), served on the console's listener too. */
export const CONSOLE_PEOPLE_SERVICES = [
  UserAdminService,
  AppAdminService,
  ServiceAccountAdminService,
  HookSecretAdminService,
] as const;

export function rpcRule(service: string, method: string): RpcRule | undefined {
  const rules = CONSOLE_RPC_RULES.get(service);
  return rules && Object.hasOwn(rules, method) ? rules[method] : undefined;
}

/** A refusal names the company whose role was missing, when the call named one ('' is every company). */
export type Verdict = { allowed: true } | { allowed: false; reason: string; company?: string };

/** Whether a person with these grants may make the call, as far as the request tells (a `response` rule is checked again on the answer). */
export function authorizeRequest(grants: RoleGrants, service: string, method: string, request: unknown): Verdict {
  const rule = rpcRule(service, method);
  if (!rule) return { allowed: false, reason: `${method} is not open to the console` };
  if (
    rule.company === 'filtered' ||
    rule.company === 'any-company' ||
    (typeof rule.company === 'object' && 'response' in rule.company)
  ) {
    // Any role anywhere lets the call run; what it answers is cut or checked afterwards.
    return Object.keys(grants).length > 0
      ? { allowed: true }
      : { allowed: false, reason: 'this person has no role in any company' };
  }
  const company =
    typeof rule.company === 'object' && 'request' in rule.company
      ? textAt(request, rule.company.request)
      : EVERY_COMPANY;
  return roleAllows(grants, company, rule.role);
}

/** The check of a `response` rule, on the answer. */
export function authorizeResponse(grants: RoleGrants, rule: RpcRule, response: unknown): Verdict {
  if (typeof rule.company !== 'object' || !('response' in rule.company)) return { allowed: true };
  return roleAllows(grants, textAt(response, rule.company.response), rule.role);
}

function roleAllows(grants: RoleGrants, company: string, needed: ConsoleRoleName): Verdict {
  if (atLeast(roleIn(grants, company), needed)) return { allowed: true };
  const where = company === EVERY_COMPANY ? 'every company' : `company "${company}"`;
  return { allowed: false, reason: `this needs the ${needed} role in ${where}`, company };
}

/** A text field by dotted path; '' when absent (which reads as "every company"). */
function textAt(message: unknown, path: string): string {
  let current = message;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return EVERY_COMPANY;
    current = (current as Record<string, unknown>)[part];
  }
  return typeof current === 'string' ? current : EVERY_COMPANY;
}
