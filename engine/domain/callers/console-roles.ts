// What a person may do in the console, per company. Three roles, each one the
// one before it and more:
//   viewer  reads: flows, versions, executions, connections (never a secret)
//   editor  writes, checks, publishes and tries flows, rotates their secrets
//   admin   everything: companies, people, connections, the audit log
// A grant names a company, or every company (the empty name: no company is
// called that). An admin token is admin in every company; people of the
// identity provider get what its roles claim lists. Pure.

export const CONSOLE_ROLES = ['viewer', 'editor', 'admin'] as const;
export type ConsoleRoleName = (typeof CONSOLE_ROLES)[number];

/** Company name → role; the key EVERY_COMPANY holds in every company, also ones created later. */
export type RoleGrants = Readonly<Record<string, ConsoleRoleName>>;
export const EVERY_COMPANY = '';

export function isConsoleRole(value: unknown): value is ConsoleRoleName {
  return (CONSOLE_ROLES as readonly unknown[]).includes(value);
}

/** The stronger of the person's grant in the company and their grant in every company. */
export function roleIn(grants: RoleGrants, company: string): ConsoleRoleName | undefined {
  const everywhere = Object.hasOwn(grants, EVERY_COMPANY) ? grants[EVERY_COMPANY] : undefined;
  const here = company !== EVERY_COMPANY && Object.hasOwn(grants, company) ? grants[company] : undefined;
  return stronger(everywhere, here);
}

/** Whether `role` includes what `needed` may do. */
export function atLeast(role: ConsoleRoleName | undefined, needed: ConsoleRoleName): boolean {
  return role !== undefined && CONSOLE_ROLES.indexOf(role) >= CONSOLE_ROLES.indexOf(needed);
}

/** Whether the person may see the company at all. */
export function seesCompany(grants: RoleGrants, company: string): boolean {
  return roleIn(grants, company) !== undefined;
}

/**
 * The grants an identity provider's roles claim lists: `viewer`, `editor` or
 * `admin` for every company, `<role>:<company>` for one (split at the first
 * colon: company names may hold colons, roles never do). The claim is a list,
 * or one text of space- or comma-separated entries. Anything else is ignored;
 * two grants for one company keep the stronger.
 */
export function grantsFromClaim(claim: unknown): RoleGrants {
  const entries = Array.isArray(claim)
    ? claim.filter((item): item is string => typeof item === 'string')
    : typeof claim === 'string'
      ? claim.split(/[\s,]+/)
      : [];
  const grants: Record<string, ConsoleRoleName> = {};
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const role = colon < 0 ? entry : entry.slice(0, colon);
    const company = colon < 0 ? EVERY_COMPANY : entry.slice(colon + 1).trim();
    if (!isConsoleRole(role) || (colon >= 0 && company === EVERY_COMPANY)) continue;
    grants[company] = stronger(grants[company], role)!;
  }
  return grants;
}

function stronger(a: ConsoleRoleName | undefined, b: ConsoleRoleName | undefined): ConsoleRoleName | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return atLeast(a, b) ? a : b;
}
