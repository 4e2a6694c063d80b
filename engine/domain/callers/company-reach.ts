// Which companies one call may learn about, for the services whose answer
// spans companies (a service user's grants) or names its company only once
// read (an execution). On the console's listener it is where the person holds
// the role (console-roles.ts); on the engine's own port the service account
// gate admitted an admin-scope account, and admin accounts are bound to no
// company (service-accounts.ts): every company. The console's roles check
// (console-authorization.ts) decides whether the call runs at all; this
// decides what the answer may say once it does.
import type { HandlerContext } from '@connectrpc/connect';
import { CONSOLE_GRANTS, serviceAccountOf } from './call-context.ts';
import { atLeast, EVERY_COMPANY, roleIn, type ConsoleRoleName } from './console-roles.ts';

/** Whether the call may learn about `company`; EVERY_COMPANY asks whether it may learn about all of them. */
export type CompanyReach = (company: string) => boolean;

/** The companies where the caller holds `role` (a console person), or every company (an admin account). */
export function companyReach(context: Pick<HandlerContext, 'values'>, role: ConsoleRoleName): CompanyReach {
  const grants = context.values.get(CONSOLE_GRANTS);
  if (grants) {
    return (company) => atLeast(roleIn(grants, company), role);
  }
  const admin = serviceAccountOf(context).scope === 'admin';
  return () => admin;
}

/** Whether the reach is every company, also ones created later. */
export function reachesEveryCompany(reach: CompanyReach): boolean {
  return reach(EVERY_COMPANY);
}
