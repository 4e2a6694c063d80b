// Permission sets, named as on the host platform. The check runs after the
// secret check (spec §5): a caller that passed the secret but lacks the set
// gets PermissionDenied naming it, and no execution starts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { PermissionAssignment } from '../storage/entities.ts';

export const FLOW_ALL = 'FLOW ALL';
export const FLOW_INTEGR = 'FLOW INTEGR.';
export const SUPER = 'SUPER';
export const PERMISSION_SETS = [FLOW_ALL, FLOW_INTEGR, SUPER] as const;

/** Spelling-tolerant: `flow all`, `FLOW ALL` and `Flow All` are one set. */
export function normalizePermissionSet(name: string): string | undefined {
  const upper = name.trim().replace(/\s+/g, ' ').toUpperCase();
  return PERMISSION_SETS.find((set) => set === upper);
}

/** A licensed service user may run flows with FLOW ALL or SUPER for the company (or for all companies). */
export async function serviceUserMayRunFlows(em: EntityManager, serviceUserId: string, companyId: string): Promise<boolean> {
  const count = await em.count(PermissionAssignment, {
    serviceUser: serviceUserId,
    permissionSet: { $in: [FLOW_ALL, SUPER] },
    $or: [{ company: companyId }, { company: null }],
  });
  return count > 0;
}
