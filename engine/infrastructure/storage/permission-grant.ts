import { defineEntity, p } from '@mikro-orm/core';
import { Company } from './company.entity.ts';
import { uuidRow } from './uuid-row.ts';

/**
 * A table of permission sets granted to one kind of caller (the holder: a service user, an
 * application) for one company, or for all (company null). Deleting the holder or the company
 * deletes its grants.
 */
export function definePermissionGrant<
  const Name extends string,
  const Table extends string,
  const Holder extends object,
>(name: Name, tableName: Table, holder: Holder) {
  return defineEntity({
    name,
    tableName,
    properties: uuidRow({
      ...holder,
      company: () => p.manyToOne(Company).nullable().deleteRule('cascade'),
      permissionSet: p.string().length(50),
    }),
  });
}
