// The delivery log (engine/domain/deliveries/): whether the facade reports the requests it
// answered, how many it may hold before the engine has them, and the flood bound that keeps an
// unauthenticated flood from filling the database.
import { setting, settingsGroup } from '../setting.ts';
import { choice } from '../values/choice-value.ts';
import { integer } from '../values/integer-value.ts';

export const DELIVERY_SETTINGS = settingsGroup('Delivery log', {
  FLOWHOOK_DELIVERY_LOG: setting({
    type: choice(['on', 'off']),
    default: 'on',
    processes: ['facade'],
    meaning:
      '`off`: the facade reports no request to the delivery log (`flowhook delivery list` stays empty, replay has nothing to run)',
  }),
  FLOWHOOK_DELIVERY_BUFFER: setting({
    type: integer({ min: 100, max: 1_000_000, unit: 'reports' }),
    default: 10_000,
    processes: ['facade'],
    meaning:
      'reports the facade holds while the engine has not taken them yet; beyond, new ones are dropped and counted in `flowhook_facade_deliveries_dropped_total`',
    why: 'a report holds at most 8 KiB of headers and, for an accepted call, its body; besides this count, the waiting reports’ bodies and headers are capped at 64 MiB',
  }),
  FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE: setting({
    type: integer({ min: 1, max: 100_000, unit: 'per minute' }),
    default: 30,
    processes: ['engine'],
    meaning:
      'refused or failed deliveries stored one by one per sender and minute per engine; more are counted on one summary row per sender, reason and minute',
  }),
  FLOWHOOK_DELIVERY_REFUSED_PER_MINUTE: setting({
    type: integer({ min: 1, max: 1_000_000, unit: 'per minute' }),
    default: 600,
    processes: ['engine'],
    meaning:
      'refused or failed deliveries stored one by one per minute per engine, whatever their senders; more are counted on summary rows',
    more: 'With the per-sender bound this caps what an unauthenticated flood writes: at most this many rows a minute per engine, plus one summary row per sender and reason (at most 500 a minute, then one per reason).',
  }),
});
