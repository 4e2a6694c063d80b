// What a service account is to the RPC layer: a scope, the companies it acts
// for, and a token. Tokens are `fhsa_` + 256 random bits: the prefix lets
// secret scanners (and people) recognise a leaked one; only their SHA-256 is stored.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from './credentials.ts';

export const SERVICE_ACCOUNT_SCOPES = ['invoke', 'records', 'admin'] as const;
export type ServiceAccountScope = (typeof SERVICE_ACCOUNT_SCOPES)[number];

export const TOKEN_PREFIX = 'fhsa_';

export function isServiceAccountScope(value: string): value is ServiceAccountScope {
  return (SERVICE_ACCOUNT_SCOPES as readonly string[]).includes(value);
}

export function generateServiceAccountToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The shape generateServiceAccountToken makes (43 base64url characters after the prefix). */
export function looksLikeServiceAccountToken(token: string): boolean {
  return /^fhsa_[A-Za-z0-9_-]{43}$/.test(token);
}

/** Enough of a token to tell two apart in `service-account list`, far too little to guess the rest. */
export function tokenHint(token: string): string {
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;
}

export function tokenHash(token: string): string {
  return sha256Hex(token);
}

/** The authenticated account behind one RPC, as the services see it. */
export interface ServiceAccountIdentity {
  name: string;
  scope: ServiceAccountScope;
  allCompanies: boolean;
  /** Company ids; meaningful only when allCompanies is false. */
  companyIds: readonly string[];
  forwardsCallers: boolean;
}

export function actsForCompany(account: ServiceAccountIdentity, companyId: string): boolean {
  return account.allCompanies || account.companyIds.includes(companyId);
}
