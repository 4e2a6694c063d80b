import { defineEntity, p } from '@mikro-orm/core';
import { uuidRow } from './uuid-row.ts';

/**
 * A machine identity that calls the engine's RPC port: the facade, a worker,
 * the CLI or an internal service. Its bearer token is stored as a SHA-256
 * hash only (the token carries 256 random bits, so a fast hash is enough);
 * `scope` says which services it may call, `companyIds` for which companies.
 */
export const ServiceAccountSchema = defineEntity({
  name: 'ServiceAccount',
  tableName: 'service_account',
  properties: uuidRow({
    name: p.string().length(100).unique('service_account_name_unique'),
    /** invoke | records | admin */
    scope: p.string().length(16),
    /** Company ids the account acts for; empty with `allCompanies` false means none. */
    companyIds: p.json<string[]>(),
    allCompanies: p.boolean(),
    /** Only the facade's account: it may pass on a caller it verified (Basic user, OAuth application). */
    forwardsCallers: p.boolean(),
    tokenHash: p.string().length(64).unique('service_account_token_hash_unique'),
    /** The token's first characters, so `list` can tell tokens apart without revealing one. */
    tokenHint: p.string().length(16),
    enabled: p.boolean(),
    createdAt: p.datetime(),
    rotatedAt: p.datetime().nullable(),
  }),
});

export class ServiceAccount extends ServiceAccountSchema.class {}
ServiceAccountSchema.setClass(ServiceAccount);
