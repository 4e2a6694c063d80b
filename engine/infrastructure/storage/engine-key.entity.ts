import { defineEntity, p } from '@mikro-orm/core';

/**
 * Keys every engine of a deployment shares and nothing outside the engines
 * needs: made once, at random, by the first engine that wants one (see
 * security/deployment-keys.ts). They key HMACs only — execution grants for
 * RecordService and the digests in idempotent execution ids — so whoever can
 * read this table could already write records and start executions directly.
 */
export const EngineKeySchema = defineEntity({
  name: 'EngineKey',
  tableName: 'engine_key',
  properties: {
    purpose: p.string().length(40).primary(),
    /** 32 random bytes, base64. */
    secret: p.string().length(64),
    createdAt: p.datetime(),
  },
});

export class EngineKey extends EngineKeySchema.class {}
EngineKeySchema.setClass(EngineKey);
