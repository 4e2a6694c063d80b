import { defineEntity, p } from '@mikro-orm/core';
import type { ConnectionSettingsInput } from '../../workflows/shared/index.ts';
import { Company } from './company.entity.ts';

/** What a connection stores besides its secret (see ConnectionSettings in the proto): the settings that are set. */
export type ConnectionSettingsColumn = Partial<ConnectionSettingsInput>;

/**
 * A named, company-scoped outbound credential that httpRequest steps refer to
 * by name. The secret is stored only as an envelope-encrypted text
 * (engine/secrets/envelope-encryption.ts) bound to this row's id.
 */
export const ConnectionSchema = defineEntity({
  name: 'Connection',
  tableName: 'connection',
  uniques: [{ name: 'connection_company_name_unique', properties: ['company', 'name'] }],
  properties: {
    id: p.uuid().primary(),
    company: () => p.manyToOne(Company).deleteRule('cascade'),
    name: p.string().length(100),
    type: p.string().length(40),
    settings: p.json<ConnectionSettingsColumn>(),
    secretCiphertext: p.text(),
    keyId: p.string().length(32),
    version: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export class Connection extends ConnectionSchema.class {}
ConnectionSchema.setClass(Connection);
