import { p } from '@mikro-orm/core';
import { Company } from './company.entity.ts';
import { uuidRow } from './uuid-row.ts';

/** The company a row belongs to: deleting the company deletes the row. */
export function owningCompany() {
  return () => p.manyToOne(Company).deleteRule('cascade');
}

/**
 * The columns of a row that one company owns, around the table's own: its uuid key and the
 * company first, when it was created and last changed last. The code that writes the row sets
 * all four; the database sets none.
 */
export function companyRow<const Columns extends object>(columns: Columns) {
  return uuidRow({ company: owningCompany(), ...columns, createdAt: p.datetime(), updatedAt: p.datetime() });
}
