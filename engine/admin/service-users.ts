// Service users for the Basic path (spec §5.2). The web service access key is
// random and long, shown once, stored as its SHA-256 hash; it can expire, be
// regenerated, and the user can be disabled.
import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../cache/change-feed.ts';
import { PermissionAssignment, ServiceUser } from '../storage/entities.ts';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../errors.ts';
import { ACCESS_KEY_LENGTH, generateRandomText, sha256Hex } from '../security/credentials.ts';
import { FLOW_ALL, normalizePermissionSet, PERMISSION_SETS } from '../webhook/permissions.ts';
import { requireCompany } from './companies.ts';

export interface NewServiceUser {
  name: string;
  company?: string;
  permissionSet?: string;
  accessKeyExpiresAt?: Date;
}

export async function createServiceUser(em: EntityManager, changes: ChangeAnnouncer, request: NewServiceUser): Promise<{ user: ServiceUser; accessKey: string }> {
  const name = request.name.trim();
  if (!/^[A-Za-z0-9._@-]{1,250}$/.test(name)) throw new InvalidArgumentError('user name: 1-250 characters of letters, digits, . _ @ -');
  const permissionSet = normalizePermissionSet(request.permissionSet || FLOW_ALL);
  if (!permissionSet) throw new InvalidArgumentError(`permission set: one of ${PERMISSION_SETS.join(', ')}`);
  if (request.accessKeyExpiresAt && request.accessKeyExpiresAt.getTime() <= Date.now()) throw new InvalidArgumentError('access key expiry: must be in the future');
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
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new AlreadyExistsError(`User "${name}" already exists`);
    throw error;
  }
  await changes.announce(em, 'users');
  return { user, accessKey };
}

/** A new random key replaces the old one at once; only its hash is stored, the key is returned once. */
export async function regenerateAccessKey(em: EntityManager, changes: ChangeAnnouncer, name: string, expiresAt?: Date): Promise<{ user: ServiceUser; accessKey: string }> {
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw new InvalidArgumentError('access key expiry: must be in the future');
  const user = await requireServiceUser(em, name);
  const accessKey = generateRandomText(ACCESS_KEY_LENGTH);
  user.accessKeyHash = sha256Hex(accessKey);
  user.accessKeyExpiresAt = expiresAt ?? null;
  await em.flush();
  // The old key stops working in every engine at once.
  await changes.announce(em, 'users');
  return { user, accessKey };
}

export async function setServiceUserEnabled(em: EntityManager, changes: ChangeAnnouncer, name: string, enabled: boolean): Promise<ServiceUser> {
  const user = await requireServiceUser(em, name);
  user.enabled = enabled;
  await em.flush();
  await changes.announce(em, 'users');
  return user;
}

async function requireServiceUser(em: EntityManager, name: string): Promise<ServiceUser> {
  const user = await em.findOne(ServiceUser, { name: name.trim() });
  if (!user) throw new NotFoundError(`User "${name}" does not exist`);
  return user;
}
