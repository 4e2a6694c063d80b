// How long the engines keep rows that only matter for a while. Each floor keeps a misconfiguration
// (or a unit slip: `30m` meant as months) from deleting rows something still needs.
import { setting, settingsGroup } from '../setting.ts';
import { duration } from '../values/duration-value.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const LIFETIME_SETTINGS = settingsGroup('Data lifetime', {
  // Why a setting of its own, and why 30 days: engine/domain/records/record-settings.ts.
  FLOWHOOK_RECORD_WRITE_RETENTION: setting({
    type: duration({ min: HOUR }),
    default: 30 * DAY,
    processes: ['engine'],
    meaning:
      "how long the record step's idempotency rows (`record_write`) are kept before every engine's periodic purge deletes them",
    why: "the record step's retries need their rows",
    more: 'See [record data lifetime](../explanation/security.md#record-data-lifetime).',
  }),
  // A used callback_wait row answers a retried delivery of the same body with the first answer;
  // senders retry for minutes to a few days.
  FLOWHOOK_CALLBACK_RETENTION: setting({
    type: duration({ min: HOUR }),
    default: 30 * DAY,
    processes: ['engine'],
    meaning:
      'how long a `callback_wait` row that can no longer change an answer (used, or its key wait expired) is kept',
    why: 'retried callback deliveries are answered from these rows',
    more: 'Unused rows stay while their execution runs (see [other data lifetimes](../explanation/security.md#other-data-lifetimes)).',
  }),
  // An audit log is kept unless a policy says otherwise.
  FLOWHOOK_AUDIT_RETENTION: setting({
    type: duration({ min: DAY, off: true }),
    default: 'off',
    processes: ['engine'],
    meaning:
      'how long `audit_event` rows are kept; `off` keeps every row, a duration lets every engine delete older ones hourly',
    why: 'the floor guards the log against a unit slip',
    more: 'See [the audit log](../explanation/security.md#audit-log).',
  }),
  // Nothing in a delivery whose signature covers no timestamp tells a replay from a new event, so
  // for this long a replay joins the first execution instead of starting another. The default
  // outlasts common namespace retentions (1 day on the dev server, 3 by the CLI's default); the
  // floor keeps every genuine redelivery a join — GitHub redelivers deliveries of the past 3 days
  // on request, Shopify retries for 4 hours. Rows are small (a digest and a time).
  FLOWHOOK_HOOK_REPLAY_WINDOW: setting({
    type: duration({ min: 3 * DAY }),
    default: 30 * DAY,
    processes: ['engine'],
    meaning:
      'how long every engine remembers a delivery accepted on a provider route whose signature covers no timestamp (`github`, `shopify`, `hmac` without `{timestamp}`)',
    why: "a provider's redelivery must join the first execution, not start another",
    more: 'A replay of it then starts nothing, even after Temporal dropped the first execution (see [replays and redeliveries](../how-to/provider-webhooks.md#replays-and-redeliveries)).',
  }),
});
