// Permission sets, named as on the host platform. The check runs after the
// secret check: a caller that passed the secret but lacks the set
// gets PermissionDenied naming it, and no execution starts.
import type { CallerIdentity } from './caller-authentication.ts';

export const FLOW_ALL = 'FLOW ALL';
export const FLOW_INTEGR = 'FLOW INTEGR.';
export const SUPER = 'SUPER';
export const PERMISSION_SETS = [FLOW_ALL, FLOW_INTEGR, SUPER] as const;

/** Spelling-tolerant: `flow all`, `FLOW ALL` and `Flow All` are one set. */
export function normalizePermissionSet(name: string): string | undefined {
  const upper = name.trim().replace(/\s+/g, ' ').toUpperCase();
  return PERMISSION_SETS.find((set) => set === upper);
}

/**
 * The permission set the caller lacks to run a flow in the company, or
 * undefined when it may. A licensed service user needs FLOW ALL or SUPER
 * (its licence brings the rest); an application needs FLOW INTEGR., and FLOW
 * ALL alone is not enough for it (no licence: FLOW INTEGR. adds the runtime
 * data). A grant without a company holds for all.
 */
export function missingPermissionSet(caller: CallerIdentity, companyId: string): string | undefined {
  // A service account's companies were checked already (invoke-webhook.ts); it holds no permission sets.
  if (caller.kind === 'service-account') return undefined;
  const accepted: readonly string[] = caller.kind === 'application' ? [FLOW_INTEGR] : [FLOW_ALL, SUPER];
  const granted = caller.grants.some(
    (grant) => (grant.companyId === null || grant.companyId === companyId) && accepted.includes(grant.permissionSet),
  );
  return granted ? undefined : accepted[0];
}

/**
 * Whether the caller may learn anything about the company: it holds some
 * permission set there (any, even one that cannot run flows) or one for all
 * companies. A caller that does not gets one answer for an unknown company,
 * an unknown activity and a known one, decided from its grants alone — no
 * lookup, so the timing cannot tell them apart either. Service accounts hold
 * no sets; their companies are checked after the secret, as before.
 */
export function mayLearnAboutCompany(caller: CallerIdentity, companyName: string): boolean {
  if (caller.kind === 'service-account') return true;
  return caller.grants.some((grant) => grant.companyId === null || grant.companyName === companyName);
}
