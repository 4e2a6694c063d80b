import { defineEntity, p } from '@mikro-orm/core';
import { uuidRow } from './uuid-row.ts';

/**
 * One request to the webhook endpoint, the resume action, the late-answer function, the provider
 * route or a callback URL, accepted or refused, as the facade answered it (engine/domain/deliveries/).
 * Company, activity and caller are plain names, not foreign keys: a refused call may name something
 * that never existed. Headers are stored with every credential redacted (facade/delivery-headers.ts);
 * a body only for accepted calls of flows without doNotLogPayload, envelope-encrypted with the
 * secret store's keys and bound to the row's id. A summary row (`count` > 1) stands for calls
 * beyond the flood bound that were counted, not stored. Alerts and retention read this table by SQL.
 */
export const DeliverySchema = defineEntity({
  name: 'Delivery',
  tableName: 'delivery',
  indexes: [
    { name: 'delivery_received_at_index', properties: ['receivedAt'] },
    { name: 'delivery_company_received_at_index', properties: ['company', 'receivedAt'] },
    {
      name: 'delivery_company_outcome_reason_received_at_index',
      properties: ['company', 'outcome', 'reason', 'receivedAt'],
    },
  ],
  properties: uuidRow({
    /** The database's clock (minus how long the report waited in the facade). */
    receivedAt: p.datetime(),
    /** endpoint, resume, answer, provider or callback. */
    route: p.text(),
    company: p.text().nullable(),
    /** Lower case, as activities are stored. */
    activity: p.text().nullable(),
    /** `user:<name>`, `app:<clientId>`, `account:<name>`. */
    caller: p.text().nullable(),
    /** The remote address as the facade sees it (trusted proxies honoured; IPv6 by /64). */
    sender: p.text().nullable(),
    /** accepted, refused (401/403) or failed. */
    outcome: p.text(),
    /** A refusal reason for 401/403, else a status-derived code (facade/delivery-reasons.ts). */
    reason: p.text().nullable(),
    status: p.integer(),
    /** responded, sync-timeout, flow-ended or instant-return. */
    answer: p.text().nullable(),
    latencyMs: p.integer().nullable(),
    requestId: p.text().nullable(),
    executionId: p.text().nullable(),
    headers: p.json<[string, string][]>().nullable(),
    /** The envelope (secret-store/envelope-encryption.ts) of the stored request, as bytes. */
    body: p.blob().nullable(),
    /**
     * The id of the secret store key the body's data key is wrapped under (what Connection and
     * HookSecret keep too): `secret-store rotate` re-wraps the bodies not under the current key and
     * tells a key removable only once no body names it. Null exactly when there is no body.
     */
    keyId: p.string().length(32).nullable().check('(body is null) = (key_id is null)'),
    /** 1, or on a summary row the number of calls it counts. */
    count: p.integer().default(1),
  }),
});

export class Delivery extends DeliverySchema.class {}
DeliverySchema.setClass(Delivery);
