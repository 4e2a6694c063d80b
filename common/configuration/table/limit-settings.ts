// Admission control: body sizes, rate limits (cluster-wide: each engine applies 1/N of them with N
// live engines), the sync-call cap, re-run pace and the record quota. 0 turns a rate limit off.
import { setting, settingsGroup } from '../setting.ts';
import { integer } from '../values/integer-value.ts';

const rate = (fallback: number, meaning: string, more?: string) =>
  setting({
    type: integer({ min: 0, unit: 'per second' }),
    default: fallback,
    processes: ['engine'],
    meaning: `${meaning}, all engines together; \`0\` turns it off`,
    more,
  });
const burst = (of: string) =>
  setting({
    type: integer({ min: 1 }),
    processes: ['engine'],
    defaultText: 'twice the rate',
    meaning: `calls at once after a quiet spell, for \`${of}\``,
  });

export const LIMIT_SETTINGS = settingsGroup('Limits', {
  FLOWHOOK_MAX_BODY_BYTES: setting({
    type: integer({ min: 1, unit: 'bytes' }),
    default: 1024 * 1024,
    processes: ['facade', 'engine'],
    meaning: 'larger request bodies get 413 (facade); the engine reads no RPC message larger than this + 64 KiB',
  }),
  FLOWHOOK_RATE_LIMIT_PER_CALLER: rate(500, 'webhook calls per second per caller (service user or application)'),
  FLOWHOOK_RATE_LIMIT_PER_CALLER_BURST: burst('FLOWHOOK_RATE_LIMIT_PER_CALLER'),
  FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: rate(500, 'webhook calls per second per (company, activity)'),
  FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: burst('FLOWHOOK_RATE_LIMIT_PER_ACTIVITY'),
  FLOWHOOK_RATE_LIMIT_PER_COMPANY: rate(0, 'webhook and provider-route calls per second per company'),
  FLOWHOOK_RATE_LIMIT_PER_COMPANY_BURST: burst('FLOWHOOK_RATE_LIMIT_PER_COMPANY'),
  FLOWHOOK_RATE_LIMIT_GLOBAL: rate(0, 'webhook and provider-route calls per second to every flow of every company'),
  FLOWHOOK_RATE_LIMIT_GLOBAL_BURST: burst('FLOWHOOK_RATE_LIMIT_GLOBAL'),
  // Counted before verification, so anyone can spend it: low enough that an unsigned flood costs
  // little, high enough for a provider's bursts (Stripe, Shopify and GitHub deliver far below this
  // per endpoint; the burst of 200 absorbs a backlog being replayed).
  FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE: rate(
    100,
    'provider-route requests per second per (company, activity), counted before the signature is checked',
    'See [the provider route](../how-to/provider-webhooks.md#rate-limit-replays-and-redeliveries).',
  ),
  FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE_BURST: burst('FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE'),
  // A sender that delivers real callbacks almost never misses (a used token is still known, and
  // answered as a repeat), so this only has to stop guessing.
  FLOWHOOK_RATE_LIMIT_CALLBACKS: rate(
    10,
    'callback URL deliveries with an unknown token per second per sender (an IPv6 client by its /64)',
    "A sender past it is refused before its next token is looked up, and only that sender; known tokens are never counted (see [waiting for a callback](../how-to/wait-for-a-callback.md); `flowWebhook_Resume` counts against the caller's rate like a webhook call).",
  ),
  FLOWHOOK_RATE_LIMIT_CALLBACKS_BURST: burst('FLOWHOOK_RATE_LIMIT_CALLBACKS'),
  FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS: setting({
    type: integer({ min: 0 }),
    default: 1000,
    processes: ['engine'],
    meaning: 'sync (Wait for Response step) calls waiting at once, all engines together; `0` turns the cap off',
    more: 'Each engine holds ⌈cap / live engines⌉.',
  }),
  FLOWHOOK_FLOW_CONTROL_MAX_WAITING: setting({
    // The bound keeps a gate's list of pages (1,000 executions each) small in what it carries.
    type: integer({ min: 1, max: 1_000_000 }),
    default: 100_000,
    processes: ['engine'],
    meaning:
      'executions waiting at one flow-control gate (a concurrency or throttle key, a paused flow) at most; a call past it is refused with 429 and Retry-After',
    more: 'Counted per gate by each engine from what the gate last reported (asked at most once a second, once the count nears the cap) and the calls it accepted since: with several engines the cap holds within about a second of calls. See [flow control](../how-to/control-how-calls-become-executions.md#limits).',
  }),
  FLOWHOOK_RERUN_PER_SECOND: setting({
    type: integer({ min: 1, unit: 'per second' }),
    default: 5,
    processes: ['engine'],
    meaning:
      're-run and delivery replay starts per second per engine process, shared by all re-run and replay requests',
    more: 'See [re-run executions](../how-to/rerun-executions.md#many-at-once).',
  }),
  FLOWHOOK_RECORD_MAX_PER_COMPANY: setting({
    type: integer({ min: 0 }),
    default: 0,
    processes: ['engine'],
    meaning: 'the most records one company may hold, all tables together; `0`: no quota',
    more: 'A write that would create one more is refused with a message naming this variable.',
  }),
});
