import { defineEntity, p } from '@mikro-orm/core';
import { companyRow } from './company-row.ts';

/**
 * A flow of a company. Its definitions live in immutable FlowVersion rows; the
 * secret belongs to the flow (not a version), so rotating it takes effect at
 * once for the published version. Only the SHA-256 hash is stored.
 */
export const FlowSchema = defineEntity({
  name: 'Flow',
  tableName: 'flow',
  uniques: [{ name: 'flow_company_name_unique', properties: ['company', 'name'] }],
  properties: companyRow({
    name: p.string().length(250),
    secretHash: p.string().length(64).nullable(),
    secretRotatedAt: p.datetime().nullable(),
    latestVersion: p.integer(),
    /** Set by `flowhook flow pause`: calls are accepted and their executions held until `flow resume`. */
    pausedAt: p.datetime().nullable(),
  }),
});

export class Flow extends FlowSchema.class {}
FlowSchema.setClass(Flow);
