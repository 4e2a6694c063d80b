import { defineEntity, p } from '@mikro-orm/core';
import { uuidRow } from './uuid-row.ts';

/** A company: the data boundary a flow runs in (the endpoint's `company` query parameter names it). */
export const CompanySchema = defineEntity({
  name: 'Company',
  tableName: 'company',
  properties: uuidRow({
    name: p.string().length(250).unique('company_name_unique'),
    createdAt: p.datetime(),
    /** Egress rules (`flowhook company egress`) that narrow where its flows may call; null: none of its own. */
    egressAllow: p.json<string[]>().nullable(),
  }),
});

export class Company extends CompanySchema.class {}
CompanySchema.setClass(Company);
