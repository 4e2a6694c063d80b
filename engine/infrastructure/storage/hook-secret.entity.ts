import { defineEntity, p } from '@mikro-orm/core';
import { companyRow } from './company-row.ts';

/**
 * The signing secret of a provider route (a trigger's `direct`), per company
 * and activity. Secrets are stored only as envelope-encrypted texts
 * (engine/infrastructure/secret-store/envelope-encryption.ts) bound to this row's id. A rotation
 * keeps the replaced secret as `previous` until `previousValidUntil`, so a
 * provider still signing with it is not refused while it switches over.
 */
export const HookSecretSchema = defineEntity({
  name: 'HookSecret',
  tableName: 'hook_secret',
  uniques: [{ name: 'hook_secret_company_activity_unique', properties: ['company', 'activity'] }],
  properties: companyRow({
    activity: p.string().length(250).check('activity = lower(activity)'),
    secretCiphertext: p.text(),
    keyId: p.string().length(32),
    previousCiphertext: p.text().nullable(),
    previousKeyId: p.string().length(32).nullable(),
    previousValidUntil: p.datetime().nullable(),
  }),
});

export class HookSecret extends HookSecretSchema.class {}
HookSecretSchema.setClass(HookSecret);
