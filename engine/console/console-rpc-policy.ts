// Which console role each RPC needs, and in which company: a closed table,
// like the service account gate's scopes — an RPC not listed here is refused
// on the console's listener, so a new admin RPC stays closed to browsers
// until someone decides who may call it. The company comes from the request
// (a field path, in protobuf-es property names), from the answer (an
// execution names its company only once read), or the call needs the role in
// every company. Pure.
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { ConnectionAdminService } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { atLeast, EVERY_COMPANY, roleIn, type ConsoleRoleName, type RoleGrants } from './console-roles.ts';

export type CompanyOfCall =
  /** A request field naming the company; when empty, the call is about every company. */
  | { request: string }
  /** A field of the answer: checked once the service has answered, and the answer withheld when it fails. */
  | { response: string }
  /** A listing the console cuts to the companies the person sees (ListCompanies). */
  | 'filtered'
  /** Nothing names a company: the call needs the role in every company. */
  | 'every-company';

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

// Re-runs (part 2 of the console) name an execution, not a company: they get their rule with their page.
const EXECUTIONS: Record<string, RpcRule> = {
  ListExecutions: { role: 'viewer', company: { request: 'company' } },
  GetExecution: { role: 'viewer', company: { response: 'execution.company' } },
};

const CONNECTIONS: Record<string, RpcRule> = {
  ListConnections: { role: 'viewer', company: { request: 'company' } },
  GetConnection: { role: 'viewer', company: { request: 'company' } },
  GetCompanyEgress: { role: 'viewer', company: { request: 'company' } },
  SetConnection: { role: 'admin', company: { request: 'company' } },
  DeleteConnection: { role: 'admin', company: { request: 'company' } },
  SetCompanyEgress: { role: 'admin', company: { request: 'company' } },
};

const AUDIT: Record<string, RpcRule> = {
  ListAuditEvents: { role: 'admin', company: { request: 'company' } },
};

export const CONSOLE_RPC_RULES: ReadonlyMap<string, Readonly<Record<string, RpcRule>>> = new Map([
  [FlowAdminService.typeName, FLOW_ADMIN],
  [ExecutionService.typeName, EXECUTIONS],
  [ConnectionAdminService.typeName, CONNECTIONS],
  [AuditService.typeName, AUDIT],
]);

/** The services the console's listener serves with a rule table (ConsoleService, the session itself, aside). */
export const CONSOLE_SERVICES = [FlowAdminService, ExecutionService, ConnectionAdminService, AuditService] as const;

export function rpcRule(service: string, method: string): RpcRule | undefined {
  const rules = CONSOLE_RPC_RULES.get(service);
  return rules && Object.hasOwn(rules, method) ? rules[method] : undefined;
}

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/** Whether a person with these grants may make the call, as far as the request tells (a `response` rule is checked again on the answer). */
export function authorizeRequest(grants: RoleGrants, service: string, method: string, request: unknown): Verdict {
  const rule = rpcRule(service, method);
  if (!rule) return { allowed: false, reason: `${method} is not open to the console` };
  if (rule.company === 'filtered' || (typeof rule.company === 'object' && 'response' in rule.company)) {
    // Any role anywhere lets the call run; what it answers is cut or checked afterwards.
    return Object.keys(grants).length > 0 ? { allowed: true } : { allowed: false, reason: 'this person has no role in any company' };
  }
  const company = typeof rule.company === 'object' && 'request' in rule.company ? textAt(request, rule.company.request) : EVERY_COMPANY;
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
  return { allowed: false, reason: `this needs the ${needed} role in ${where}` };
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
