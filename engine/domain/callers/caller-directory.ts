// What the webhook path needs to know about callers — service users with
// their key hash and state, applications with their issuer, tenant, consent
// and state, and the permission sets of both — kept as plain snapshots per
// caller (per client id for applications: every issuer's registration of it,
// so a refusal can tell "another issuer" from "unknown"). The change
// feed's `users` topic clears it whenever any of that changes (in any
// engine), so a warm call authenticates without a PostgreSQL round trip.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeFeed } from '../../infrastructure/cache/change-feed.ts';
import { SnapshotCache, type SnapshotCacheOptions } from '../../infrastructure/cache/snapshot-cache.ts';
import {
  ApplicationPermission,
  IdentityApplication,
  PermissionAssignment,
  ServiceUser,
} from '../../infrastructure/storage/entities.ts';

export interface PermissionGrant {
  /** Null: the set holds in every company. */
  companyId: string | null;
  /** The company's name (companies are never renamed): which tenants a caller may learn about, before any lookup. */
  companyName: string | null;
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
  /** Normalised (application-issuer.ts); null: registered before issuers were bound, never admitted. */
  issuer: string | null;
  /** The tenant its tokens must name; null: any tenant of the issuer. */
  tenantId: string | null;
  enabled: boolean;
  consentGranted: boolean;
  grants: PermissionGrant[];
}

export interface CallerDirectory {
  serviceUser(em: EntityManager, name: string): Promise<ServiceUserSnapshot | undefined>;
  /** Every registration of the client id (one per issuer); undefined when there is none. */
  applications(em: EntityManager, clientId: string): Promise<readonly ApplicationSnapshot[] | undefined>;
}

export function createCallerDirectory(
  feed: ChangeFeed | undefined,
  cacheOptions: SnapshotCacheOptions = {},
): CallerDirectory {
  // An unknown name is remembered too (until the next change to users): otherwise it would cost a
  // database round trip a known user with a wrong key does not, and the timing would tell names apart.
  const users = new SnapshotCache<ServiceUserSnapshot>(feed, 'users', {
    ...cacheOptions,
    rememberMisses: true,
    name: 'service_users',
  });
  const applications = new SnapshotCache<readonly ApplicationSnapshot[]>(feed, 'users', {
    ...cacheOptions,
    name: 'applications',
  });
  return {
    serviceUser: (em, name) => users.get(name, () => loadServiceUser(em, name)),
    applications: (em, clientId) => applications.get(clientId, () => loadApplications(em, clientId)),
  };
}

async function loadServiceUser(em: EntityManager, name: string): Promise<ServiceUserSnapshot | undefined> {
  const user = await em.findOne(ServiceUser, { name });
  if (!user) return undefined;
  const assignments = await em.find(PermissionAssignment, { serviceUser: user.id }, { populate: ['company'] });
  return {
    id: user.id,
    name: user.name,
    accessKeyHash: user.accessKeyHash,
    accessKeyExpiresAt: user.accessKeyExpiresAt?.getTime() ?? null,
    enabled: user.enabled,
    grants: assignments.map(grantOf),
  };
}

async function loadApplications(em: EntityManager, clientId: string): Promise<ApplicationSnapshot[] | undefined> {
  const apps = await em.find(IdentityApplication, { clientId });
  // A miss stays undefined, so the cache never holds it.
  if (apps.length === 0) return undefined;
  const permissions = await em.find(
    ApplicationPermission,
    { application: { $in: apps.map((app) => app.id) } },
    { populate: ['company'] },
  );
  return apps.map((app) => ({
    id: app.id,
    clientId: app.clientId,
    issuer: app.issuer ?? null,
    tenantId: app.tenantId ?? null,
    enabled: app.enabled,
    consentGranted: app.consentGranted,
    grants: permissions.filter((permission) => permission.application.id === app.id).map(grantOf),
  }));
}

function grantOf(row: { company?: { id: string; name: string } | null; permissionSet: string }): PermissionGrant {
  return {
    companyId: row.company?.id ?? null,
    companyName: row.company?.name ?? null,
    permissionSet: row.permissionSet,
  };
}
