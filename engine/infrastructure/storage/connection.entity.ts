import { defineEntity, p } from '@mikro-orm/core';
import type { ConnectionSettingsInput } from '../../../flow/index.ts';
import { companyRow } from './company-row.ts';

/** What a connection stores besides its secret (see ConnectionSettings in the proto): the settings that are set. */
export type ConnectionSettingsColumn = Partial<ConnectionSettingsInput>;

/**
 * A named, company-scoped outbound credential that httpRequest steps refer to
 * by name. The secret is stored only as an envelope-encrypted text
 * (engine/infrastructure/secret-store/envelope-encryption.ts) bound to this row's id.
 */
export const ConnectionSchema = defineEntity({
  name: 'Connection',
  tableName: 'connection',
  uniques: [{ name: 'connection_company_name_unique', properties: ['company', 'name'] }],
  properties: companyRow({
    name: p.string().length(100),
    type: p.string().length(40),
    settings: p.json<ConnectionSettingsColumn>(),
    secretCiphertext: p.text(),
    keyId: p.string().length(32),
    version: p.integer(),
  }),
});

export class Connection extends ConnectionSchema.class {}
ConnectionSchema.setClass(Connection);
