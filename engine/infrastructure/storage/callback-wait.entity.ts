import { defineEntity, p } from '@mikro-orm/core';

/**
 * Where a waitForCallback step can be reached from outside: one row per minted
 * callback URL (`t:` + SHA-256 of its token) and one per registered correlation
 * key (`k:` + HMAC of company, activity and key), each naming the execution and
 * step it resumes. Neither a token nor a key is stored, only these digests, so
 * reading the table gives no way in. `usedAt`, `answerStatus` and `bodyDigest`
 * are set on every row of the (execution, step) once the step accepted a
 * callback: a retried delivery of the same body gets that answer again, any
 * other is refused. Key rows expire with the step's timeout; URL rows do not
 * (the execution itself says when a URL no longer leads anywhere).
 */
export const CallbackWaitSchema = defineEntity({
  name: 'CallbackWait',
  tableName: 'callback_wait',
  indexes: [{ name: 'callback_wait_execution_id_step_index', properties: ['executionId', 'step'] }],
  properties: {
    lookup: p.text().primary(),
    company: p.text(),
    /** Lower-cased, as the trigger names it. */
    activity: p.text(),
    executionId: p.text(),
    step: p.text(),
    /** The execution is a doNotLogPayload one: the delivered callback is encrypted in its history. */
    sensitive: p.boolean(),
    createdAt: p.datetime(),
    expiresAt: p.datetime().nullable(),
    usedAt: p.datetime().nullable(),
    answerStatus: p.integer().nullable(),
    /** HMAC of the accepted body (callbacks/callback-digests.ts), never the body. */
    bodyDigest: p.text().nullable(),
  },
});

export class CallbackWait extends CallbackWaitSchema.class {}
CallbackWaitSchema.setClass(CallbackWait);
