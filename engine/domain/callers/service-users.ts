// Service users for the Basic path (user name and web service access key). The key is
// random and long, shown once, stored as its SHA-256 hash; it can expire, be
// regenerated, and the user can be disabled or deleted. Every change is
// announced on the change feed's `users` topic after it commits, so every
// engine's caller cache drops the user and its next call sees the change.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { PermissionAssignment, ServiceUser } from '../../infrastructure/storage/entities.ts';
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { ACCESS_KEY_LENGTH, generateRandomText, sha256Hex } from './credentials.ts';
import { exceedsNameLimit, NAME_LIMITS } from '../../../common/name-limits.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { FLOW_ALL } from './permissions.ts';
import { requireUsablePermissionSet } from './caller-permission-sets.ts';
import { requireCompany } from '../companies/companies.ts';
import { saveCallerChange } from './caller-changes.ts';

export interface NewServiceUser {
  name: string;
  /** The company its permission set holds in; required unless allCompanies. */
  company?: string;
  /** The set holds in every company, also ones created later: never the default, it has to be asked for. */
  allCompanies?: boolean;
  permissionSet?: string;
  accessKeyExpiresAt?: Date;
}

/** A service user with its grants, as operators see it: never the key or its hash. */
export interface ServiceUserView {
  user: ServiceUser;
  /** Company '' is "all companies". */
  permissionSets: { permissionSet: string; company: string }[];
}

/** A user with the access key just made for it: the one time the key is seen (only its hash is stored). */
export interface IssuedAccessKey {
  user: ServiceUser;
  accessKey: string;
}

/** How a regenerated key's expiry is chosen: kept unless a new one is given or none is asked for. */
export type KeyExpiryChange = { keep: true } | { expiresAt: Date } | { clear: true };

const USER_NAME = /^[A-Za-z0-9._@-]+$/;

export async function createServiceUser(
  em: EntityManager,
  changes: ChangeAnnouncer,
  request: NewServiceUser,
): Promise<IssuedAccessKey> {
  const name = request.name.trim();
  if (!USER_NAME.test(name) || exceedsNameLimit('user', name))
    throw new InvalidArgumentError(`user name: 1-${NAME_LIMITS.user} characters of letters, digits, . _ @ -`);
  const permissionSet = requireUsablePermissionSet('service-user', request.permissionSet || FLOW_ALL);
  if (request.accessKeyExpiresAt) requireFutureExpiry(request.accessKeyExpiresAt);
  requireUserScope(`flowhook user create ${shellArg(name)}`, request.company, request.allCompanies ?? false);
  const company = request.company ? await requireCompany(em, request.company) : null;
  const accessKey = generateRandomText(ACCESS_KEY_LENGTH);
  const user = em.create(ServiceUser, {
    id: randomUUID(),
    name,
    accessKeyHash: sha256Hex(accessKey),
    accessKeyExpiresAt: request.accessKeyExpiresAt ?? null,
    enabled: true,
    createdAt: new Date(),
  });
  em.create(PermissionAssignment, { id: randomUUID(), serviceUser: user, company, permissionSet });
  await saveCallerChange(
    em,
    changes,
    () => new AlreadyExistsError(`User "${name}" already exists; see it with: flowhook user show ${shellArg(name)}`),
  );
  return { user, accessKey };
}

/** A new random key replaces the old one at once; only its hash is stored, the key is returned once. */
export async function regenerateAccessKey(
  em: EntityManager,
  changes: ChangeAnnouncer,
  name: string,
  expiry: KeyExpiryChange,
  now = new Date(),
): Promise<IssuedAccessKey> {
  if ('expiresAt' in expiry) requireFutureExpiry(expiry.expiresAt, now);
  const user = await requireServiceUser(em, name);
  if ('expiresAt' in expiry) user.accessKeyExpiresAt = expiry.expiresAt;
  else if ('clear' in expiry) user.accessKeyExpiresAt = null;
  else if (user.accessKeyExpiresAt && user.accessKeyExpiresAt.getTime() <= now.getTime()) {
    // Keeping a past expiry would hand out a key that is refused on its first call.
    throw new FailedPreconditionError(
      `The access key of "${user.name}" expired at ${user.accessKeyExpiresAt.toISOString()}, so a new key cannot keep that expiry; give a new one: ` +
        `flowhook user rotate-key ${shellArg(user.name)} --expires-at <ISO 8601> (or --no-expiry)`,
    );
  }
  const accessKey = generateRandomText(ACCESS_KEY_LENGTH);
  user.accessKeyHash = sha256Hex(accessKey);
  // The old key stops working in every engine at once.
  await saveCallerChange(em, changes);
  return { user, accessKey };
}

/** Removes the user and its grants; the name is free again. Returns the user as it was. */
export async function deleteServiceUser(
  em: EntityManager,
  changes: ChangeAnnouncer,
  name: string,
): Promise<ServiceUserView> {
  const view = await em.transactional(async (tx) => {
    const before = await serviceUserView(tx, await requireServiceUser(tx, name));
    // The grants go explicitly, in the same transaction, rather than relying on the foreign key's delete rule.
    await tx.nativeDelete(PermissionAssignment, { serviceUser: before.user.id });
    await tx.nativeDelete(ServiceUser, { id: before.user.id });
    return before;
  });
  await changes.announce(em, 'users');
  return view;
}

export async function listServiceUsers(em: EntityManager): Promise<ServiceUserView[]> {
  const users = await em.find(ServiceUser, {}, { orderBy: { name: 'asc' } });
  if (users.length === 0) return [];
  const assignments = await em.find(
    PermissionAssignment,
    { serviceUser: { $in: users.map((user) => user.id) } },
    { populate: ['company'] },
  );
  return users.map((user) =>
    viewOf(
      user,
      assignments.filter((assignment) => assignment.serviceUser.id === user.id),
    ),
  );
}

export async function getServiceUser(em: EntityManager, name: string): Promise<ServiceUserView> {
  return serviceUserView(em, await requireServiceUser(em, name));
}

export async function serviceUserView(em: EntityManager, user: ServiceUser): Promise<ServiceUserView> {
  return viewOf(user, await em.find(PermissionAssignment, { serviceUser: user.id }, { populate: ['company'] }));
}

export async function requireServiceUser(em: EntityManager, name: string): Promise<ServiceUser> {
  const user = await em.findOne(ServiceUser, { name: name.trim() });
  if (!user) throw new NotFoundError(`User "${name.trim()}" does not exist; list users with: flowhook user list`);
  return user;
}

/** Sorted by set, then company with "all companies" first, so output is stable. */
function viewOf(user: ServiceUser, assignments: PermissionAssignment[]): ServiceUserView {
  const permissionSets = assignments
    .map((assignment) => ({ permissionSet: assignment.permissionSet, company: assignment.company?.name ?? '' }))
    .sort((a, b) => a.permissionSet.localeCompare(b.permissionSet) || a.company.localeCompare(b.company));
  return { user, permissionSets };
}

/**
 * Refused unless the operator chose the scope of a service user's permission set: one company, or
 * every company said out loud. `command` is the command to repeat with --company (create, grant).
 */
export function requireUserScope(command: string, company: string | undefined, allCompanies: boolean): void {
  if (company && allCompanies)
    throw new InvalidArgumentError('give either a company (--company) or all companies (--all-companies), not both');
  if (!company && !allCompanies) {
    throw new InvalidArgumentError(
      `a service user's permission set needs a scope: ${command} --company <name> lets it call in that company; ` +
        '--all-companies lets it call in every company, also ones created later',
    );
  }
}

function requireFutureExpiry(expiresAt: Date, now = new Date()): void {
  if (expiresAt.getTime() <= now.getTime())
    throw new InvalidArgumentError(`access key expiry ${expiresAt.toISOString()}: must be in the future`);
}
