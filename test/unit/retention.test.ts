// The pure parts of retention: the settings as the engine and `flowhook start` read them, the
// table of kinds (every setting it names exists), the schedule's id per deployment, how an
// erasure request's subject is checked, and the CLI's refusals before anything is sent.
import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';
import { CONFIGURATION_TABLE } from '../../common/configuration/configuration-table.ts';
import {
  countsOf,
  KIND_FACTS,
  retentionText,
  ROW_KINDS,
  TEMPORAL_KINDS,
} from '../../engine/domain/retention/retention-kinds.ts';
import { retentionScheduleId } from '../../engine/domain/retention/retention-schedule.ts';
import { erasureSubject } from '../../engine/domain/retention/subject-erasure.ts';
import { runCapturing } from '../support/cli-runner.ts';

const DAY = 86_400_000;
const base = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' };
const retentionOf = (env: Record<string, string>) => readEngineConfig({ ...base, ...env }).retention;

test('defaults: deliveries 14 days, audit kept for good, idempotency and callbacks and record writes 30 days, a purge every hour', (t) => {
  t.deepEqual(retentionOf({}), {
    rows: {
      deliveries: 14 * DAY,
      audit: undefined,
      console_sessions: 0,
      idempotency: 30 * DAY,
      callbacks: 30 * DAY,
      record_writes: 30 * DAY,
    },
    consoleSessionTtlMs: 8 * 3_600_000,
    intervalMs: 3_600_000,
  });
  t.is(readSettings({}, 'start').FLOWHOOK_EXECUTION_RETENTION, 7 * DAY);
});

test('the old variable names keep working and feed the same purge', (t) => {
  const retention = retentionOf({
    FLOWHOOK_AUDIT_RETENTION: '400d',
    FLOWHOOK_RECORD_WRITE_RETENTION: '2d',
    FLOWHOOK_CALLBACK_RETENTION: '3h',
    FLOWHOOK_HOOK_REPLAY_WINDOW: '5d',
    FLOWHOOK_DELIVERY_RETENTION: '36h',
    FLOWHOOK_RETENTION_INTERVAL: '10m',
  });
  t.deepEqual(retention.rows, {
    deliveries: 36 * 3_600_000,
    audit: 400 * DAY,
    console_sessions: 0,
    idempotency: 5 * DAY,
    callbacks: 3 * 3_600_000,
    record_writes: 2 * DAY,
  });
  t.is(retention.intervalMs, 600_000);
  // The engine's other readers of the same variables agree.
  const config = readEngineConfig({ ...base, FLOWHOOK_AUDIT_RETENTION: '400d', FLOWHOOK_CALLBACK_RETENTION: '3h' });
  t.is(config.auditRetentionMs, 400 * DAY);
  t.is(config.callbackRetentionMs, 3 * 3_600_000);
});

test('floors and bounds refuse a unit slip, naming the variable', (t) => {
  t.throws(() => retentionOf({ FLOWHOOK_DELIVERY_RETENTION: '30m' }), {
    message: /^FLOWHOOK_DELIVERY_RETENTION must be a duration of at least 1h .*got "30m"$/,
  });
  t.throws(() => retentionOf({ FLOWHOOK_RETENTION_INTERVAL: '10s' }), {
    message: /^FLOWHOOK_RETENTION_INTERVAL must be a duration from 1m to 1d/,
  });
  t.throws(() => retentionOf({ FLOWHOOK_RETENTION_INTERVAL: '2d' }), { message: /FLOWHOOK_RETENTION_INTERVAL/ });
  t.throws(() => readSettings({ FLOWHOOK_EXECUTION_RETENTION: '12h' }, 'start').FLOWHOOK_EXECUTION_RETENTION, {
    message: /^FLOWHOOK_EXECUTION_RETENTION must be a duration of at least 1d/,
  });
});

test('every kind names a setting of the configuration table (or none), and a retention as show prints it', (t) => {
  for (const kind of [...ROW_KINDS, ...TEMPORAL_KINDS]) {
    const { setting } = KIND_FACTS[kind];
    if (kind === 'coordinators') t.is(setting, '');
    else t.true(setting in CONFIGURATION_TABLE, `${kind}: ${setting}`);
  }
  // Every kind kept in PostgreSQL says where its rows are or why its oldest row is not looked up.
  for (const kind of ROW_KINDS)
    t.true(KIND_FACTS[kind].rows !== undefined || KIND_FACTS[kind].oldestUnindexed === true);
  const rows = retentionOf({}).rows;
  t.is(retentionText('deliveries', rows, 8 * 3_600_000), '14d');
  t.is(retentionText('audit', rows, 8 * 3_600_000), 'off');
  t.is(retentionText('console_sessions', rows, 8 * 3_600_000), 'expiry (8h)');
  t.deepEqual(countsOf({ audit: 2 }), {
    deliveries: 0,
    audit: 2,
    console_sessions: 0,
    idempotency: 0,
    callbacks: 0,
    record_writes: 0,
  });
});

test('one schedule per deployment: the default task queue has flowhook-retention, another queue its own', (t) => {
  t.is(retentionScheduleId('flowhook-flows'), 'flowhook-retention');
  t.is(retentionScheduleId('staging'), 'flowhook-retention.staging');
});

test('an erasure names exactly one subject; a caller must be of a form deliveries and executions use', (t) => {
  t.deepEqual(erasureSubject({ company: ' Acme ', caller: '' }), { company: 'Acme' });
  t.deepEqual(erasureSubject({ company: '', caller: 'user:alice' }), { caller: 'user:alice' });
  t.deepEqual(erasureSubject({ company: '', caller: 'app:4f1c-client' }), { caller: 'app:4f1c-client' });
  for (const request of [
    { company: '', caller: '' },
    { company: 'Acme', caller: 'user:alice' },
  ])
    t.throws(() => erasureSubject(request), { message: /exactly one subject/ });
  for (const caller of ['alice', 'provider:github', 'user:', 'user: alice'])
    t.throws(() => erasureSubject({ company: '', caller }), {
      message: /user:<name>, app:<clientId> or account:<name>/,
    });
});

test('the CLI refuses a purge without one subject, or with both --dry-run and --yes, before sending anything', async (t) => {
  const client = () => {
    throw new Error('nothing may be sent');
  };
  for (const args of [
    ['retention', 'purge', '--yes'],
    ['retention', 'purge', '--company', 'A', '--caller', 'user:x', '--yes'],
    ['retention', 'purge', '--company', 'A', '--dry-run', '--yes'],
  ]) {
    const run = await runCapturing(args, { retention: { client } });
    t.is(run.code, 2, args.join(' '));
    t.regex(run.err, /^flowhook: /);
  }
});
