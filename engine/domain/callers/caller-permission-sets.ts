// Which permission sets an operator may give to which kind of caller. A set
// that can never let the caller run a flow is refused when it is given, with
// the reason, instead of being stored and answering every call 403.
import type { CallerIdentity } from './caller-authentication.ts';
import {
  FLOW_ALL,
  FLOW_INTEGR,
  missingPermissionSet,
  normalizePermissionSet,
  PERMISSION_SETS,
  SUPER,
} from './permissions.ts';
import { InvalidArgumentError } from '../../errors.ts';

type CallerKind = CallerIdentity['kind'];

/**
 * The sets that let this kind of caller run flows, read from the webhook
 * path's own check (missingPermissionSet), so what may be granted and what is
 * accepted at call time cannot drift apart.
 */
export function permissionSetsThatWork(kind: CallerKind): string[] {
  return PERMISSION_SETS.filter((permissionSet) => {
    const caller = {
      kind,
      id: '',
      name: '',
      label: '',
      grants: [{ companyId: null, companyName: null, permissionSet }],
    };
    return missingPermissionSet(caller, '') === undefined;
  });
}

/** The normalised set, or InvalidArgument saying which set this kind of caller needs. */
export function requireUsablePermissionSet(kind: CallerKind, raw: string): string {
  const usable = permissionSetsThatWork(kind);
  const permissionSet = normalizePermissionSet(raw);
  if (!permissionSet) {
    throw new InvalidArgumentError(
      `Unknown permission set "${raw.trim()}"; ${kind === 'service-user' ? 'a service user' : 'an application'} needs ${usable.map((set) => `"${set}"`).join(' or ')}`,
    );
  }
  if (usable.includes(permissionSet)) return permissionSet;
  throw new InvalidArgumentError(
    kind === 'service-user' ? unusableForServiceUser(permissionSet) : unusableForApplication(permissionSet),
  );
}

function unusableForServiceUser(permissionSet: string): string {
  const why =
    permissionSet === FLOW_INTEGR
      ? `${FLOW_INTEGR} is the set for identity-provider applications (flowhook app register <clientId> --issuer <url> --company <company> --permission-set "${FLOW_INTEGR}")`
      : `"${permissionSet}" never lets one call`;
  return `A service user cannot use "${permissionSet}": Basic service users need ${FLOW_ALL} (or ${SUPER}); ${why}`;
}

function unusableForApplication(permissionSet: string): string {
  const why =
    permissionSet === SUPER
      ? `${SUPER} is never assignable to an application`
      : `${permissionSet} alone never lets one call (an application has no user licence)`;
  return `An application cannot use "${permissionSet}": applications need "${FLOW_INTEGR}"; ${why}`;
}
