// Retention on a real stack (PostgreSQL, Temporal, engine, worker): the Temporal Schedule the
// engine keeps, triggered now instead of in an hour, runs the retention workflow on the worker,
// whose activity asks the engine to purge — rows past each kind's retention go, younger ones stay,
// for every table, and a backlog larger than one round takes several; the engine's metrics and
// `flowhook retention show --json` (the real binary) say what went; a records account bound to a
// company may not run the round. An erasure by company deletes that company's executions and rows
// and nothing of another company, one by caller only that caller's, each audited and refused
// without --yes. `flowhook start`'s namespace retention is applied (DescribeNamespace), and the
// schedule is ensured idempotently by engines starting at once, and updated when the interval changed.
import test from 'ava';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { engineAuthInterceptor } from '../../common/engine-auth-interceptor.ts';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import {
  HousekeepingService,
  RetentionAdminService,
  type PurgeSubjectResponseJson,
  type GetRetentionResponseJson,
} from '../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { formatDuration } from '../../common/duration.ts';
import type { RetentionRunResult } from '../../flow/retention-contract.ts';
import { ensureRetentionSchedule, retentionScheduleId } from '../../engine/domain/retention/retention-schedule.ts';
import { ROUND_BATCHES } from '../../engine/domain/retention/expired-rows-purge.ts';
import { AGED_ROWS_BATCH } from '../../engine/infrastructure/housekeeping/aged-rows.ts';
import { namespaceRetentionMs, setDevServerRetention } from '../../engine/domain/retention/namespace-retention.ts';
import { runCapturing } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { FLOWHOOK } from '../support/flowhook-start.ts';
import { sample, scrape } from '../support/metrics-samples.ts';
import { startStack, testInfrastructure, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

const DAY = 86_400_000;
let stack: TestStack;

test.before(async () => {
  // The audit log is kept for good by default: a day here, so the purge of it is seen too. The
  // delivery rows are the test's own (the facade's reports arrive after the answer, at their own pace).
  stack = await startStack({ env: { FLOWHOOK_AUDIT_RETENTION: '1d', FLOWHOOK_DELIVERY_LOG: 'off' } });
});

test.after.always(async () => {
  await stack?.close();
});

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  stack.engine.orm.em.getConnection().execute<T[]>(text, params);
const count = async (text: string, params: unknown[] = []) =>
  Number((await sql<{ n: number }>(`select count(*)::int as n ${text}`, params))[0]!.n);

interface Run {
  out: string;
  err: string;
  code: number;
}

/** The real `flowhook` binary, as an operator runs it. */
function flowhook(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        FLOWHOOK_ENGINE_URL: stack.engineUrl,
        FLOWHOOK_ADMIN_TOKEN: stack.adminToken,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { out: '', err: '', code: 0 };
    child.stdout.on('data', (chunk: Buffer) => (run.out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (run.err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ...run, code: code ?? -1 }));
  });
}

/** `flowhook retention …` in this process, as the bootstrap admin. */
function retentionCli(...args: string[]) {
  const client = createClient(
    RetentionAdminService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  );
  return runCapturing(args, { retention: { client: () => client } });
}

/** Triggers the deployment's retention schedule now and waits for the run it started. */
async function runRetentionSchedule(): Promise<RetentionRunResult> {
  const schedule = stack.temporal.schedule.getHandle(retentionScheduleId(stack.taskQueue));
  const before = (await schedule.describe()).info.recentActions.length;
  await schedule.trigger();
  const described = await eventually(() => schedule.describe(), {
    until: (found) => found.info.recentActions.length > before,
    what: 'the triggered retention run',
  });
  const started = described.info.recentActions.at(-1)!.action.workflow.workflowId;
  return (await stack.temporal.workflow.getHandle(started).result()) as RetentionRunResult;
}

/** One row past its retention and one within it, per kind; returns what tells them apart. */
async function seedRows(): Promise<void> {
  const company = `Retention ${randomUUID().slice(0, 8)}`;
  await stack.admin.createCompany({ name: company });
  const [{ id: companyId }] = (await sql<{ id: string }>('select id from company where name = ?', [company])) as [
    { id: string },
  ];
  for (const [marker, age] of [
    ['old', '15 days'],
    ['young', '1 hour'],
  ] as const) {
    await sql(
      `insert into delivery (id, received_at, route, company, caller, outcome, status, request_id) values (gen_random_uuid(), now() - ?::interval, 'endpoint', ?, 'user:seed', 'refused', 401, ?)`,
      [age, company, `seed-${marker}`],
    );
    await sql(`insert into provider_delivery (key, received_at) values (?, now() - ?::interval)`, [
      `seed-${marker}`,
      marker === 'old' ? '31 days' : age,
    ]);
    await sql(
      `insert into record_write (id, company_id, run_id, idempotency_key, operation, request_digest, version, created, created_at) values (gen_random_uuid(), ?, '', ?, 'upsert', '', 1, true, now() - ?::interval)`,
      [companyId, `seed-${marker}/step`, marker === 'old' ? '31 days' : age],
    );
    await sql(
      `insert into callback_wait (lookup, company, activity, execution_id, step, sensitive, created_at, used_at) values (?, ?, 'seed', ?, 'paid', false, now() - ?::interval, now() - ?::interval)`,
      [
        `t:seed-${marker}`,
        company,
        `seed-${marker}`,
        marker === 'old' ? '31 days' : age,
        marker === 'old' ? '31 days' : age,
      ],
    );
    await sql(
      `insert into audit_event (at, account, action, method, outcome, details) values (now() - ?::interval, ?, 'company.create', 'x', 'ok', '{}')`,
      [marker === 'old' ? '2 days' : age, `seed-${marker}`],
    );
    // A session past its expiry, and a live one.
    await sql(
      `insert into console_session (id, person, via, account, roles, created_at, expires_at, checked_at) values (?, ?, 'admin-token', 'seed', '{}', now() - interval '9 hours', now() + ?::interval, now())`,
      [randomUUID().replace(/-/g, ''), `seed-${marker}`, marker === 'old' ? '-1 hour' : '1 hour'],
    );
  }
}

const SEEDED_KINDS = ['deliveries', 'audit', 'console_sessions', 'idempotency', 'callbacks', 'record_writes'];

test.serial(
  'the schedule run deletes what is past each retention and keeps what is not; metrics and retention show say so',
  async (t) => {
    await seedRows();
    const result = await runRetentionSchedule();
    // Exactly the one old row of each kind: nothing younger went.
    t.deepEqual(result.purged, Object.fromEntries(SEEDED_KINDS.map((kind) => [kind, 1])));
    t.true(result.rounds >= 1);
    const left = {
      deliveries: await sql<{ m: string }>(`select request_id as m from delivery where request_id like 'seed-%'`),
      idempotency: await sql<{ m: string }>(`select key as m from provider_delivery where key like 'seed-%'`),
      record_writes: await sql<{ m: string }>(
        `select idempotency_key as m from record_write where idempotency_key like 'seed-%'`,
      ),
      callbacks: await sql<{ m: string }>(`select execution_id as m from callback_wait where lookup like 't:seed-%'`),
      audit: await sql<{ m: string }>(`select account as m from audit_event where account like 'seed-%'`),
      console_sessions: await sql<{ m: string }>(`select person as m from console_session where person like 'seed-%'`),
    };
    for (const [kind, rows] of Object.entries(left))
      t.deepEqual(
        rows.map((row) => row.m),
        [kind === 'record_writes' ? 'seed-young/step' : 'seed-young'],
        kind,
      );

    // The engine that answered counted them.
    const metrics = await scrape(`http://${stack.engine.metrics!.host}:${stack.engine.metrics!.port}/metrics`);
    for (const kind of SEEDED_KINDS) t.is(sample(metrics, 'flowhook_retention_purged_rows_total', { kind }), 1, kind);
    const lastRun = sample(metrics, 'flowhook_retention_last_run_timestamp_seconds');
    t.true(lastRun > Date.now() / 1000 - 600 && lastRun <= Date.now() / 1000 + 1, String(lastRun));

    // `flowhook retention show --json`, the real binary: every kind, the last purge, the namespace's retention.
    const shown = await flowhook('retention', 'show', '--json');
    t.is(shown.code, 0, shown.err);
    const report = JSON.parse(shown.out) as GetRetentionResponseJson;
    const kinds = new Map((report.kinds ?? []).map((kind) => [kind.kind, kind]));
    t.deepEqual([...kinds.keys()], [...SEEDED_KINDS, 'executions', 'coordinators']);
    for (const kind of SEEDED_KINDS) {
      t.is(kinds.get(kind)!.lastPurged, '1', kind);
      t.is(kinds.get(kind)!.enforcedBy, 'schedule flowhook-retention', kind);
    }
    t.like(kinds.get('deliveries'), { setting: 'FLOWHOOK_DELIVERY_RETENTION', retention: '14d' });
    t.like(kinds.get('audit'), { setting: 'FLOWHOOK_AUDIT_RETENTION', retention: '1d' });
    t.like(kinds.get('record_writes'), { setting: 'FLOWHOOK_RECORD_WRITE_RETENTION', retention: '30d' });
    // The oldest young delivery is about an hour old.
    const oldest = Date.parse(kinds.get('deliveries')!.oldest!);
    t.true(Date.now() - oldest >= 3_600_000 - 60_000, kinds.get('deliveries')!.oldest);
    const namespace = stack.temporal.options.namespace;
    const executions = kinds.get('executions')!;
    t.is(executions.retention, formatDuration(await namespaceRetentionMs(stack.temporal, namespace)));
    t.is(executions.enforcedBy, 'temporal namespace');
    t.is(report.namespace, namespace);
    t.like(report.schedule, { scheduleId: retentionScheduleId(stack.taskQueue), interval: '1h', problem: '' });
    t.true(Date.parse(report.schedule!.lastRun!) >= Date.parse(result.startedAt));

    // And for a person: one line per kind.
    const table = await flowhook('retention', 'show');
    t.is(table.code, 0, table.err);
    t.regex(table.out, /^KIND +RETENTION +SETTING +ENFORCED BY +LAST PURGED +OLDEST$/m);
    t.regex(table.out, /^deliveries +14d +FLOWHOOK_DELIVERY_RETENTION +schedule flowhook-retention +1 /m);
    t.regex(table.out, /^executions +\S+ +FLOWHOOK_EXECUTION_RETENTION +temporal namespace +- +-$/m);
  },
);

test.serial('a backlog larger than one round is purged in several rounds of one run', async (t) => {
  // One round deletes at most ROUND_BATCHES × 5,000 rows of a kind: one more makes a second round.
  const backlog = ROUND_BATCHES * AGED_ROWS_BATCH + 1;
  await sql(
    `insert into delivery (id, received_at, route, outcome, status, request_id) select gen_random_uuid(), now() - interval '20 days', 'endpoint', 'refused', 401, 'backlog' from generate_series(1, ?)`,
    [backlog],
  );
  const result = await runRetentionSchedule();
  t.is(result.rounds, 2);
  t.is(result.purged.deliveries, backlog);
  t.is(await count(`from delivery where request_id = 'backlog'`), 0);
});

test("the purge round is the worker's: a records account bound to a company is refused", async (t) => {
  const housekeeping = (token: string) =>
    createClient(
      HousekeepingService,
      createConnectTransport({
        baseUrl: stack.engineUrl,
        httpVersion: '2',
        interceptors: [engineAuthInterceptor(token)],
      }),
    );
  const company = `Bound ${randomUUID().slice(0, 8)}`;
  await stack.admin.createCompany({ name: company });
  const { token } = await stack.admin.createServiceAccount({
    name: `bound-${randomUUID().slice(0, 8)}`,
    scope: 'records',
    companies: [company],
    allCompanies: false,
    forwardsCallers: false,
  });
  const refused = await t.throwsAsync(housekeeping(token).purgeExpired({}));
  t.is((refused as ConnectError).code, Code.PermissionDenied);
  t.regex((refused as ConnectError).rawMessage, /bound to companies/);
  const round = await housekeeping(stack.tokens.worker).purgeExpired({});
  t.deepEqual(
    round.purged.map((rows) => rows.kind),
    SEEDED_KINDS,
  );
});

// --- erasure -------------------------------------------------------------------------------

const QUICK = [{ log: { description: 'Note it', message: 'seen' } }];
const HOLD = [{ sleep: { description: 'Hold', duration: '1h' } }];
const instant = (activity: string) => ({ activity, responseMode: 'INSTANT_RETURN', defaultResponseStatusCode: 200 });

interface Subject {
  tenant: Tenant;
  /** A second caller of the same company. */
  other: Tenant;
  secrets: Record<string, string>;
  executions: string[];
  otherExecution: string;
}

async function subjectWithData(name: string): Promise<Subject> {
  const tenant = await createTenant(stack, name);
  const userName = `svc-${randomUUID().slice(0, 6)}`;
  const { accessKey } = await stack.admin.createUser({ name: userName, company: name, permissionSet: 'FLOW ALL' });
  const other: Tenant = {
    company: name,
    userName,
    accessKey,
    auth: `Basic ${Buffer.from(`${userName}:${accessKey}`).toString('base64')}`,
  };
  const secrets: Record<string, string> = {};
  for (const [activity, steps] of [
    ['erase.quick', QUICK],
    ['erase.hold', HOLD],
  ] as const)
    secrets[activity] = (
      await deployFlow(stack, flow(name, activity.replace('.', '-'), instant(activity), [...steps]))
    ).secret;
  const call = async (who: Tenant, activity: string) => {
    const answer = await callWebhook(stack, { company: name, activity, secret: secrets[activity]!, auth: who.auth });
    if (answer.status !== 200 || !answer.executionId) throw new Error(`${activity}: ${answer.status} ${answer.text}`);
    return answer.executionId;
  };
  const executions = [await call(tenant, 'erase.quick'), await call(tenant, 'erase.hold')];
  const otherExecution = await call(other, 'erase.hold');
  const [{ id: companyId }] = (await sql<{ id: string }>('select id from company where name = ?', [name])) as [
    { id: string },
  ];
  for (const [executionId, who] of [
    [executions[1]!, tenant],
    [otherExecution, other],
  ] as const) {
    await sql(
      `insert into delivery (id, received_at, route, company, caller, outcome, status, execution_id) values (gen_random_uuid(), now(), 'endpoint', ?, ?, 'accepted', 200, ?)`,
      [name, `user:${who.userName}`, executionId],
    );
    await sql(
      `insert into callback_wait (lookup, company, activity, execution_id, step, sensitive, created_at) values (?, ?, 'erase.hold', ?, 'paid', false, now())`,
      [`t:${executionId}`, name, executionId],
    );
    await sql(
      `insert into record_write (id, company_id, run_id, idempotency_key, operation, request_digest, version, created, created_at) values (gen_random_uuid(), ?, '', ?, 'upsert', '', 1, true, now())`,
      [companyId, `${executionId}/note`],
    );
  }
  // Visibility lags the start: wait until the company's three executions are listed.
  await eventually(() => visibleExecutions(`Company = '${name}'`), {
    until: (n) => n === 3,
    what: `${name}'s executions listed`,
  });
  return { tenant, other, secrets, executions, otherExecution };
}

async function visibleExecutions(clause: string): Promise<number> {
  let n = 0;
  for await (const row of stack.temporal.workflow.list({ query: `TaskQueue = '${stack.taskQueue}' AND ${clause}` }))
    if (row) n++;
  return n;
}

async function exists(executionId: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(executionId).describe();
    return true;
  } catch (error) {
    if ((error as Error).name === 'WorkflowNotFoundError') return false;
    throw error;
  }
}

const rowsOfCompany = async (company: string) => ({
  deliveries: await count('from delivery where company = ?', [company]),
  callbacks: await count('from callback_wait where company = ?', [company]),
  record_writes: await count('from record_write where company_id = (select id from company where name = ?)', [company]),
});

/** How long Temporal may take to delete an execution after DeleteWorkflowExecution. */
const DELETION_MS = 120_000;

const counts = (json: PurgeSubjectResponseJson) =>
  Object.fromEntries((json.purged ?? []).map((rows) => [rows.kind, Number(rows.rows)]));

test.serial(
  "an erasure by company deletes that company's executions and rows, nothing of another; audited; only with --yes",
  async (t) => {
    const erased = await subjectWithData('Erase Me Co');
    const kept = await subjectWithData('Keep Me Co');
    const keptBefore = await rowsOfCompany('Keep Me Co');

    const dry = await retentionCli('retention', 'purge', '--company', 'Erase Me Co', '--dry-run', '--json');
    t.is(dry.code, 0, dry.err);
    const wouldGo = counts(JSON.parse(dry.out) as PurgeSubjectResponseJson);
    t.deepEqual(wouldGo, { executions: 3, deliveries: 2, callbacks: 2, record_writes: 2 });

    const refused = await retentionCli('retention', 'purge', '--company', 'Erase Me Co');
    t.is(refused.code, 1);
    t.regex(
      refused.err,
      /not purged: company Erase Me Co has 3 executions, 2 deliveries, .* to delete\. Confirm with --yes/,
    );
    t.true(await exists(erased.executions[0]!), 'nothing deleted without --yes');

    const done = await retentionCli('retention', 'purge', '--company', 'Erase Me Co', '--yes', '--json');
    t.is(done.code, 0, done.err);
    const response = JSON.parse(done.out) as PurgeSubjectResponseJson;
    t.false(response.dryRun ?? false);
    t.deepEqual(counts(response), wouldGo);
    t.true((response.kept ?? []).some((line) => line.startsWith('audit events')));

    t.deepEqual(await rowsOfCompany('Erase Me Co'), { deliveries: 0, callbacks: 0, record_writes: 0 });
    // Temporal deletes a closed execution asynchronously (about half a minute on the dev server).
    for (const executionId of [...erased.executions, erased.otherExecution])
      await eventually(() => exists(executionId), {
        until: (found) => !found,
        timeoutMs: DELETION_MS,
        what: `${executionId} deleted`,
      });
    // The other company: every execution (the running ones still running) and every row.
    for (const executionId of [...kept.executions, kept.otherExecution]) t.true(await exists(executionId));
    t.is(
      (await stack.temporal.workflow.getHandle(kept.executions[1]!).describe()).status.name,
      'RUNNING',
      'the other company’s held execution still runs',
    );
    t.deepEqual(await rowsOfCompany('Keep Me Co'), keptBefore);

    // Each call is on record: the two dry runs (the second one is what the refusal counted) and the erasure.
    const audited = await sql<{ company: string; outcome: string; details: Record<string, unknown> }>(
      `select company, outcome, details from audit_event where action = 'retention.purge' order by id`,
    );
    t.deepEqual(
      audited.map((row) => [row.company, row.outcome, row.details.dryRun]),
      [
        ['Erase Me Co', 'ok', true],
        ['Erase Me Co', 'ok', true],
        ['Erase Me Co', 'ok', false],
      ],
    );

    // By caller: only that caller's execution and rows, not the company's others.
    const caller = `user:${kept.other.userName}`;
    const byCaller = await retentionCli('retention', 'purge', '--caller', caller, '--yes', '--json');
    t.is(byCaller.code, 0, byCaller.err);
    t.deepEqual(counts(JSON.parse(byCaller.out) as PurgeSubjectResponseJson), {
      executions: 1,
      deliveries: 1,
      callbacks: 1,
      record_writes: 1,
    });
    await eventually(() => exists(kept.otherExecution), {
      until: (found) => !found,
      timeoutMs: DELETION_MS,
      what: 'the caller’s execution deleted',
    });
    for (const executionId of kept.executions) t.true(await exists(executionId));
    t.is(await count('from delivery where caller = ?', [caller]), 0);
    t.is(await count('from delivery where caller = ?', [`user:${kept.tenant.userName}`]), 1);
    t.is(await count('from callback_wait where execution_id = ?', [kept.otherExecution]), 0);
    t.is(await count('from callback_wait where execution_id = ?', [kept.executions[1]]), 1);
    t.is(await count('from record_write where idempotency_key = ?', [`${kept.otherExecution}/note`]), 0);
    t.is(await count('from record_write where idempotency_key = ?', [`${kept.executions[1]}/note`]), 1);
    const lastAudit = await sql<{ target: string; details: Record<string, unknown> }>(
      `select target, details from audit_event where action = 'retention.purge' order by id desc limit 1`,
    );
    t.deepEqual(lastAudit, [{ target: caller, details: { dryRun: false } }]);
  },
);

// --- Temporal's side ----------------------------------------------------------------------

test("flowhook start's retention reaches the namespace (DescribeNamespace)", async (t) => {
  const namespace = `retention-${randomUUID().slice(0, 8)}`;
  await stack.temporal.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs(DAY),
  });
  const { temporalAddress } = testInfrastructure();
  // A namespace just registered may take a moment to be known to every service of the server.
  await eventually(
    () =>
      setDevServerRetention(temporalAddress, namespace, 3 * DAY).then(
        () => true,
        () => false,
      ),
    { until: (applied) => applied, what: 'the retention applied' },
  );
  t.is(await namespaceRetentionMs(stack.temporal, namespace), 3 * DAY);
});

test('engines starting at once ensure one schedule; a changed interval updates it, an unchanged one does not', async (t) => {
  const taskQueue = `retention-${randomUUID()}`;
  const scheduleId = retentionScheduleId(taskQueue);
  t.teardown(() => stack.temporal.schedule.getHandle(scheduleId).delete());
  const first = await Promise.all(
    [0, 1, 2].map(() => ensureRetentionSchedule(stack.temporal, { taskQueue, intervalMs: 3_600_000 })),
  );
  t.deepEqual(
    first.filter((result) => result === 'created'),
    ['created'],
  );
  t.true(
    first.every((result) => result === 'created' || result === 'unchanged'),
    first.join(),
  );
  t.is(await ensureRetentionSchedule(stack.temporal, { taskQueue, intervalMs: 3_600_000 }), 'unchanged');
  t.is(await ensureRetentionSchedule(stack.temporal, { taskQueue, intervalMs: 10 * 60_000 }), 'updated');
  const described = await stack.temporal.schedule.getHandle(scheduleId).describe();
  t.is(described.spec.intervals?.[0]?.every, 10 * 60_000);
  t.is(described.policies.overlap, ScheduleOverlapPolicy.SKIP);
  t.is(described.action.taskQueue, taskQueue);
  t.is(described.action.workflowType, 'flowhookRetentionWorkflow');
});
