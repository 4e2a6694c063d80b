import { defineEntity, p } from '@mikro-orm/core';

/**
 * A delivery the provider route accepted on a route whose signature covers no timestamp (github,
 * shopify, hmac without {timestamp}): nothing in such a request tells a replay from a new event,
 * so the engines remember it for FLOWHOOK_HOOK_REPLAY_WINDOW, longer than Temporal may keep its
 * execution (engine/domain/direct/delivery-memory.ts). Keyed by the SHA-256 of the execution id, which
 * is itself a keyed digest of the signed delivery: the table holds no request data.
 */
export const ProviderDeliverySchema = defineEntity({
  name: 'ProviderDelivery',
  tableName: 'provider_delivery',
  indexes: [{ name: 'provider_delivery_received_at_index', properties: ['receivedAt'] }],
  properties: {
    /** Hex SHA-256 of the execution id the delivery started. */
    key: p.string().length(64).primary(),
    /** When it was first accepted (the database's clock); the window counts from here. */
    receivedAt: p.datetime(),
  },
});

export class ProviderDelivery extends ProviderDeliverySchema.class {}
ProviderDeliverySchema.setClass(ProviderDelivery);
