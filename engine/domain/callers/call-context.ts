// Who a call acts for, as the edges found out and the domain reads it: the
// service account the gate admitted (edges/rpc/service-account-gate.ts), and
// on the console's listener the person and their role grants
// (edges/console/console-gate.ts). The keys live here, below both, so that
// the domain asks "who is calling" without importing the gates that answer.
import { createContextKey, createContextValues, type ContextValues, type HandlerContext } from '@connectrpc/connect';
import type { RoleGrants } from './console-roles.ts';
import type { ServiceAccountIdentity } from './service-account-tokens.ts';

const SERVICE_ACCOUNT = createContextKey<ServiceAccountIdentity | undefined>(undefined, {
  description: 'the authenticated service account',
});

/** Set by the console's listener: the person behind the call (the account alone names only a token or an identity provider). */
export const AUDIT_PERSON = createContextKey<string | undefined>(undefined, {
  description: 'the person who made the call in the console',
});

/** Set by the console's listener: the signed-in person's role grants; unset on the engine's own port. */
export const CONSOLE_GRANTS = createContextKey<RoleGrants | undefined>(undefined, {
  description: "the console person's role grants",
});

/** Context values naming the account a call acts as; the console's listener names the account behind its session. */
export function serviceAccountValues(account: ServiceAccountIdentity | undefined): ContextValues {
  return createContextValues().set(SERVICE_ACCOUNT, account);
}

/** The account the gate admitted; services behind the gate always have one. */
export function serviceAccountOf(context: Pick<HandlerContext, 'values'>): ServiceAccountIdentity {
  const account = context.values.get(SERVICE_ACCOUNT);
  if (!account) throw new Error('no service account on an RPC that passed the gate');
  return account;
}
