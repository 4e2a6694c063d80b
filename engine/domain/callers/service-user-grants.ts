// Granting and revoking a service user's permission sets. A grant is for one
// company or, asked for with allCompanies, for all (company null); it is idempotent (the same set for
// the same scope twice is one grant). A revoke names exactly the scope it
// was granted for. Both announce `users`, so the next call in any engine
// sees the change.
//
// A user belongs to the deployment, its grants to companies: a company's admin
// gives and takes the grants of their company, and what the answer says —
// the user's grants, a refusal's list of them, the warnings — covers only the
// companies the caller reaches (security/company-reach.ts) and the grants for
// all companies (they hold in the caller's company too). Nothing tells a
// company's admin what the user may do in another company.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { PermissionAssignment } from '../../infrastructure/storage/entities.ts';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { FLOW_ALL, normalizePermissionSet, PERMISSION_SETS } from './permissions.ts';
import { permissionSetsThatWork, requireUsablePermissionSet } from './caller-permission-sets.ts';
import { requireCompany } from '../companies/companies.ts';
import { reachesEveryCompany, type CompanyReach } from './company-reach.ts';
import { requireServiceUser, requireUserScope, serviceUserView, type ServiceUserView } from './service-users.ts';

export interface UserGrant {
  name: string;
  /** Undefined or empty: the all-companies grant (a new one only with allCompanies). */
  company?: string;
  permissionSet: string;
}

export interface NewUserGrant extends UserGrant {
  /** A grant in every company must be asked for; an empty company alone is refused. */
  allCompanies: boolean;
}

export interface GrantChange {
  view: ServiceUserView;
  /** The set in its canonical spelling, and its company ('' for all). */
  grant: { permissionSet: string; company: string };
}

export async function grantUserPermission(
  em: EntityManager,
  changes: ChangeAnnouncer,
  grant: NewUserGrant,
  reach: CompanyReach,
): Promise<GrantChange & { alreadyGranted: boolean }> {
  const permissionSet = requireUsablePermissionSet('service-user', grant.permissionSet);
  requireUserScope(
    `flowhook user grant ${shellArg(grant.name.trim())} --permission-set ${shellArg(permissionSet)}`,
    grant.company,
    grant.allCompanies,
  );
  const result = await em.transactional(async (tx) => {
    const user = await requireServiceUser(tx, grant.name);
    const company = grant.company ? await requireCompany(tx, grant.company) : null;
    const alreadyGranted =
      (await tx.count(PermissionAssignment, { serviceUser: user.id, company: company?.id ?? null, permissionSet })) > 0;
    if (!alreadyGranted)
      tx.create(PermissionAssignment, { id: randomUUID(), serviceUser: user, company, permissionSet });
    await tx.flush();
    return {
      view: withinReach(await serviceUserView(tx, user), reach),
      alreadyGranted,
      grant: { permissionSet, company: company?.name ?? '' },
    };
  });
  if (!result.alreadyGranted) await changes.announce(em, 'users');
  return result;
}

export async function revokeUserPermission(
  em: EntityManager,
  changes: ChangeAnnouncer,
  grant: UserGrant,
  reach: CompanyReach,
): Promise<GrantChange & { warnings: string[] }> {
  // Any known set may be revoked, also one that could never be used (stored before creation refused it).
  const permissionSet = normalizePermissionSet(grant.permissionSet);
  if (!permissionSet)
    throw new InvalidArgumentError(
      `Unknown permission set "${grant.permissionSet.trim()}"; one of ${PERMISSION_SETS.map((set) => `"${set}"`).join(', ')}`,
    );
  const companyName = grant.company ?? '';
  const view = await em.transactional(async (tx) => {
    const before = await serviceUserView(tx, await requireServiceUser(tx, grant.name));
    if (!before.permissionSets.some((held) => held.permissionSet === permissionSet && held.company === companyName)) {
      throw new NotFoundError(
        noSuchGrantMessage(withinReach(before, reach), permissionSet, companyName, reachesEveryCompany(reach)),
      );
    }
    const candidates = await tx.find(
      PermissionAssignment,
      { serviceUser: before.user.id, permissionSet },
      { populate: ['company'] },
    );
    const revoked = candidates.filter((assignment) => (assignment.company?.name ?? '') === companyName);
    await tx.nativeDelete(PermissionAssignment, { id: { $in: revoked.map((assignment) => assignment.id) } });
    return serviceUserView(tx, before.user);
  });
  await changes.announce(em, 'users');
  const warnings = reachesEveryCompany(reach) ? reachWarnings(view, companyName) : companyWarnings(view, companyName);
  return { view: withinReach(view, reach), warnings, grant: { permissionSet, company: companyName } };
}

/** The view with only the grants the caller may learn of: those of companies in reach, and those for all companies. */
function withinReach(view: ServiceUserView, reach: CompanyReach): ServiceUserView {
  return { ...view, permissionSets: view.permissionSets.filter((held) => held.company === '' || reach(held.company)) };
}

function noSuchGrantMessage(
  view: ServiceUserView,
  permissionSet: string,
  company: string,
  everyCompany: boolean,
): string {
  const scope = company ? `for company "${company}"` : 'for all companies';
  const held = view.permissionSets.map(describeGrant).join(', ');
  const now = everyCompany
    ? held
      ? `its grants: ${held}`
      : 'it has no grants'
    : held
      ? `its grants you can see: ${held}`
      : 'it has no grant you can see';
  return `User "${view.user.name}" has no "${permissionSet}" grant ${scope}; ${now} (a revoke names the exact company of the grant, or none for an all-companies grant)`;
}

/** What the user can no longer do after the revoke: nothing to say while it still calls where it did. */
function reachWarnings(view: ServiceUserView, revokedCompany: string): string[] {
  const usable = permissionSetsThatWork('service-user');
  const remaining = view.permissionSets.filter((held) => usable.includes(held.permissionSet));
  const name = shellArg(view.user.name);
  if (remaining.length === 0) {
    // A company where it holds no set at all answers 401 like an unknown one (flow-call-authorization.ts); where an unusable set is left, 403.
    const answer =
      view.permissionSets.length === 0
        ? 'every call now gets 401'
        : 'every call is now refused (403 where it still holds a set, 401 elsewhere)';
    return [
      `User "${view.user.name}" has no permission set left that lets it call: ${answer}. Grant one with: flowhook user grant ${name} --company <company> --permission-set "${FLOW_ALL}"`,
    ];
  }
  if (remaining.some((held) => held.company === '')) return [];
  const companies = [...new Set(remaining.map((held) => held.company))];
  const list = companies.map((company) => `"${company}"`).join(', ');
  if (!revokedCompany)
    return [`User "${view.user.name}" no longer calls in every company; it now can only in: ${list}`];
  if (companies.includes(revokedCompany)) return [];
  return [`User "${view.user.name}" can no longer call in company "${revokedCompany}"; it still can in: ${list}`];
}

/** For a caller who reaches only some companies: whether the user still calls in the one revoked from, and nothing about any other. */
function companyWarnings(view: ServiceUserView, revokedCompany: string): string[] {
  const usable = permissionSetsThatWork('service-user');
  const stillCalls = view.permissionSets.some(
    (held) => usable.includes(held.permissionSet) && (held.company === revokedCompany || held.company === ''),
  );
  return stillCalls ? [] : [`User "${view.user.name}" can no longer call in company "${revokedCompany}"`];
}

function describeGrant(held: { permissionSet: string; company: string }): string {
  return `${held.permissionSet} (${held.company || 'all companies'})`;
}
