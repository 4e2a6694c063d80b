// What the webhook path needs to know about callers — service users with
// their key hash and state, applications with consent and state, and the
// permission sets of both — kept as plain snapshots per caller. The change
// feed's `users` topic clears it whenever any of that changes (in any
// engine), so a warm call authenticates without a PostgreSQL round trip.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeFeed } from '../cache/change-feed.ts';
import { SnapshotCache } from '../cache/snapshot-cache.ts';
import { ApplicationPermission, IdentityApplication, PermissionAssignment, ServiceUser } from '../storage/entities.ts';

export interface PermissionGrant {
  /** Null: the set holds in every company. */
  companyId: string | null;
  permissionSet: string;
}

export interface ServiceUserSnapshot {
  id: string;
  name: string;
  accessKeyHash: string;
  accessKeyExpiresAt: number | null;
  enabled: boolean;
  grants: PermissionGrant[];
}

export interface ApplicationSnapshot {
  id: string;
  clientId: string;
  enabled: boolean;
  consentGranted: boolean;
  grants: PermissionGrant[];
}

export interface CallerDirectory {
  serviceUser(em: EntityManager, name: string): Promise<ServiceUserSnapshot | undefined>;
  application(em: EntityManager, clientId: string): Promise<ApplicationSnapshot | undefined>;
}

export function createCallerDirectory(feed: ChangeFeed | undefined): CallerDirectory {
  const users = new SnapshotCache<ServiceUserSnapshot>(feed, 'users');
  const applications = new SnapshotCache<ApplicationSnapshot>(feed, 'users');
  return {
    serviceUser: (em, name) => users.get(name, () => loadServiceUser(em, name)),
    application: (em, clientId) => applications.get(clientId, () => loadApplication(em, clientId)),
  };
}

async function loadServiceUser(em: EntityManager, name: string): Promise<ServiceUserSnapshot | undefined> {
  const user = await em.findOne(ServiceUser, { name });
  if (!user) return undefined;
  const assignments = await em.find(PermissionAssignment, { serviceUser: user.id });
  return {
    id: user.id,
    name: user.name,
    accessKeyHash: user.accessKeyHash,
    accessKeyExpiresAt: user.accessKeyExpiresAt?.getTime() ?? null,
    enabled: user.enabled,
    grants: assignments.map(grantOf),
  };
}

async function loadApplication(em: EntityManager, clientId: string): Promise<ApplicationSnapshot | undefined> {
  const app = await em.findOne(IdentityApplication, { clientId });
  if (!app) return undefined;
  const permissions = await em.find(ApplicationPermission, { application: app.id });
  return { id: app.id, clientId: app.clientId, enabled: app.enabled, consentGranted: app.consentGranted, grants: permissions.map(grantOf) };
}

function grantOf(row: { company?: { id: string } | null; permissionSet: string }): PermissionGrant {
  return { companyId: row.company?.id ?? null, permissionSet: row.permissionSet };
}
