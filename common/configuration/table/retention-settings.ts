// How long flowhook keeps each kind of data, in one place (engine/domain/retention/retention-kinds.ts
// lists every kind with the setting that bounds it). The rows in PostgreSQL are deleted by one
// enforcer: the Temporal Schedule `flowhook-retention` every FLOWHOOK_RETENTION_INTERVAL, whose
// workflow asks an engine to purge (engine/domain/retention/). Executions live in Temporal, which
// deletes closed ones after the namespace's retention. Each floor keeps a misconfiguration (or a
// unit slip: `30m` meant as months) from deleting rows something still needs.
import { setting, settingsGroup } from '../setting.ts';
import { duration } from '../values/duration-value.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const RETENTION_SETTINGS = settingsGroup('Retention', {
  // Every request the facade answered (engine/domain/deliveries/): headers and accepted bodies, so
  // personal data. Two weeks covers "why was my call refused last week" and a replay after a
  // partner's outage; longer is a decision for the operator.
  FLOWHOOK_DELIVERY_RETENTION: setting({
    type: duration({ min: HOUR }),
    default: 14 * DAY,
    processes: ['engine'],
    meaning:
      'how long the delivery log (`delivery`: every request answered, refused ones too, with redacted headers and encrypted bodies) keeps a request; older ones are deleted by the retention schedule',
    why: 'a delivery younger than an hour may still be replayed or be the reason an alert fires',
    more: 'A delivery older than this can no longer be replayed (`flowhook delivery replay`).',
  }),
  // An audit log is evidence: it is kept unless a policy says otherwise. Its rows come from admin
  // actions, not from calls, so it grows with people's work and not with traffic; an upgrade must
  // not start deleting evidence nobody chose to delete.
  FLOWHOOK_AUDIT_RETENTION: setting({
    type: duration({ min: DAY, off: true }),
    default: 'off',
    processes: ['engine'],
    meaning:
      'how long `audit_event` rows are kept; `off` keeps every row, a duration lets the retention schedule delete older ones',
    why: 'the floor guards the log against a unit slip',
    more: 'An erasure (`flowhook retention purge`) keeps audit events too: see [the audit log](../explanation/security.md#audit-log).',
  }),
  // Why a setting of its own, and why 30 days: engine/domain/records/record-settings.ts.
  FLOWHOOK_RECORD_WRITE_RETENTION: setting({
    type: duration({ min: HOUR }),
    default: 30 * DAY,
    processes: ['engine'],
    meaning:
      "how long the record step's idempotency rows (`record_write`: a digest and a version, no data) are kept before the retention schedule deletes them",
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
      'how long every engine remembers a delivery accepted on a provider route whose signature covers no timestamp (`github`, `shopify`, `hmac` without `{timestamp}`): the `provider_delivery` idempotency rows',
    why: "a provider's redelivery must join the first execution, not start another",
    more: 'A replay of it then starts nothing, even after Temporal dropped the first execution (see [replays and redeliveries](../how-to/provider-webhooks.md#replays-and-redeliveries)).',
  }),
  // Closed executions (and with them the Idempotency-Key joins, which are workflow ids, and the
  // closed runs of flow control's coordinators) are Temporal's to keep: its namespace retention.
  // flowhook sets it only on the dev server it runs itself; on a cluster the namespace is the
  // operator's (and Temporal Cloud's), so `flowhook retention show` reports it instead.
  FLOWHOOK_EXECUTION_RETENTION: setting({
    type: duration({ min: DAY }),
    default: 7 * DAY,
    processes: ['start'],
    meaning:
      "how long Temporal keeps a closed execution (the namespace's retention): `flowhook start` sets it on the embedded dev server at every start",
    why: 'Temporal refuses a namespace retention under a day on a cluster, and a re-run or an Idempotency-Key retry needs the execution',
    more: 'With `TEMPORAL_ADDRESS` set, the namespace keeps its own retention: set it with `temporal operator namespace update --retention 7d <namespace>`; `flowhook retention show` reports it.',
  }),
  // The schedule's period: how late an expired row may be deleted. Each run deletes in bounded
  // batches, so a shorter period only spreads the work.
  FLOWHOOK_RETENTION_INTERVAL: setting({
    type: duration({ min: MINUTE, max: DAY }),
    default: HOUR,
    processes: ['engine'],
    meaning:
      'how often the Temporal Schedule `flowhook-retention` runs the retention workflow on the worker, which deletes what is past each retention above',
    why: 'at least once a day, so a retention holds to the day; at most once a minute, since each run scans every table',
    more: 'Engines create the schedule at start and update its interval when this changed; a run that finds the previous one still running is skipped.',
  }),
});
