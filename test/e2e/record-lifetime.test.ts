// Record data has a lifetime (issue 17, part 9): the applied-write log keeps
// a digest and the resulting version under the Temporal run, never the data;
// a retry of the same run gets the first answer, a new run reusing the key
// its own; rows past FLOWHOOK_RECORD_WRITE_RETENTION are purged; the optional
// per-company quota refuses with the setting's name. Real engine, worker,
// Temporal and PostgreSQL throughout.
import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from '../../engine/infrastructure/storage/entities.ts';
import { MIGRATIONS, openOrm } from '../../engine/infrastructure/storage/orm.ts';
import { purgeRecordWrites } from '../../engine/domain/records/record-write-purge.ts';
import { recordClient } from '../support/record-client.ts';
import { createTestDatabase, startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  failureReasonOf,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';

const MAX_RECORDS = 3;
let stack: TestStack;
const secrets: Record<string, string> = {};
const sync = (activity: string) => ({ activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 });

const flows: Record<string, unknown[]> = {
  'lifetime.upsert': [
    {
      name: 'r',
      record: {
        description: 'Keep the note',
        table: 'note',
        key: '${Trigger.Payload.id}',
        upsert: { text: '${Trigger.Payload.text}' },
      },
    },
    {
      respond: {
        description: 'Kept',
        statusCode: 200,
        body: '${ {"version": Steps.r.version, "created": Steps.r.created} }',
      },
    },
  ],
};

test.before(async () => {
  stack = await startStack({ env: { FLOWHOOK_RECORD_MAX_PER_COMPANY: String(MAX_RECORDS) } });
});
test.after.always(async () => {
  await stack?.close();
});

async function tenantWithFlows(name: string): Promise<Tenant> {
  const tenant = await createTenant(stack, name);
  for (const [activity, steps] of Object.entries(flows)) {
    secrets[`${name}/${activity}`] = (
      await deployFlow(stack, flow(name, activity.replace('.', '-'), sync(activity), steps))
    ).secret;
  }
  return tenant;
}

const call = (tenant: Tenant, activity: string, payloadText: string) =>
  callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[`${tenant.company}/${activity}`]!,
    auth: tenant.auth,
    payloadText,
  });

const sql = <T>(query: string, params: unknown[] = []) =>
  stack.engine.orm.em.getConnection().execute<T[]>(query, params);

/** Every record_write row of a company, each as its whole JSON text (what a database dump would show). */
const writeRowsOf = (company: string) =>
  sql<{
    row: string;
    run_id: string;
    idempotency_key: string;
    operation: string;
    request_digest: string;
    version: number;
    created: boolean;
  }>(
    `select row_to_json(w)::text as row, w.run_id, w.idempotency_key, w.operation, w.request_digest, w.version, w.created from record_write w join company c on c.id = w.company_id where c.name = ?`,
    [company],
  );

const scope = (company: string, runId: string, idempotencyKey: string, key = 'c1') => ({
  company,
  table: 'counter',
  key,
  caller: 'test',
  idempotencyKey,
  runId,
});

async function refusal(t: import('ava').ExecutionContext, promise: Promise<unknown>): Promise<ConnectError> {
  const error = await t.throwsAsync(promise);
  t.true(error instanceof ConnectError, String(error));
  return error as ConnectError;
}

test("a flow's write is logged under its Temporal run with a digest and the version, and none of the data", async (t) => {
  const tenant = await tenantWithFlows('Lifetime Run');
  const answer = await call(tenant, 'lifetime.upsert', '{"id": "N-1", "text": "canary-9f2e41"}');
  t.is(answer.status, 200, answer.text);
  t.deepEqual(JSON.parse(answer.value!.body), { version: 1, created: true });
  const { runId } = await stack.temporal.workflow.getHandle(answer.executionId!).describe();
  const rows = await writeRowsOf(tenant.company);
  t.is(rows.length, 1);
  t.like(rows[0], {
    run_id: runId,
    idempotency_key: `${answer.executionId}/steps[0]`,
    operation: 'upsert',
    version: 1,
    created: true,
  });
  t.regex(rows[0]!.request_digest, /^[0-9a-f]{64}$/);
  t.false(rows[0]!.row.includes('canary-9f2e41'), rows[0]!.row);
  // The record itself holds it, of course.
  t.is(
    (await recordClient(stack).getRecord({ scope: { ...scope(tenant.company, '', ''), table: 'note', key: 'N-1' } }))
      .record?.data?.text,
    'canary-9f2e41',
  );
});

test('a retry of the same run applies once and answers the first result; a new run with the same key gets its own', async (t) => {
  const { company } = await createTenant(stack, 'Lifetime Retry');
  const records = recordClient(stack);
  await records.insertRecord({ scope: scope(company, 'run-1', 'exec-1/steps[0]'), data: { n: 0 } });
  const first = await records.modifyRecord({ scope: scope(company, 'run-1', 'exec-1/steps[1]'), data: { n: 1 } });
  const retried = await records.modifyRecord({ scope: scope(company, 'run-1', 'exec-1/steps[1]'), data: { n: 1 } });
  t.is(first.record?.version, 2n);
  t.deepEqual(retried.record, first.record);
  t.is((await records.getRecord({ scope: scope(company, '', '') })).record?.version, 2n);
  // A later run that reuses the workflow id (and so the idempotency key) is a new write.
  const reused = await records.modifyRecord({ scope: scope(company, 'run-2', 'exec-1/steps[1]'), data: { n: 1 } });
  t.is(reused.record?.version, 3n);
  // A retry answers the record as it is now when another write came in between.
  t.is(
    (await records.modifyRecord({ scope: scope(company, 'run-1', 'exec-1/steps[1]'), data: { n: 1 } })).record?.version,
    3n,
  );
  // The same key with another write is refused and applies nothing.
  const error = await refusal(
    t,
    records.modifyRecord({ scope: scope(company, 'run-1', 'exec-1/steps[1]'), data: { n: 99 } }),
  );
  t.is(error.code, Code.FailedPrecondition);
  t.regex(error.rawMessage, /idempotency key "exec-1\/steps\[1\]" was already used for another write/);
  t.deepEqual((await records.getRecord({ scope: scope(company, '', '') })).record?.data, { n: 1 });
});

test('a retried delete answers the version it deleted without the data, which is kept nowhere', async (t) => {
  const { company } = await createTenant(stack, 'Lifetime Delete');
  const records = recordClient(stack);
  await records.insertRecord({
    scope: scope(company, 'run-1', 'exec-2/steps[0]', 'd1'),
    data: { card: 'canary-4111-delete' },
  });
  const deleted = await records.deleteRecord({ scope: scope(company, 'run-1', 'exec-2/steps[1]', 'd1') });
  t.deepEqual(deleted.record?.data, { card: 'canary-4111-delete' });
  const retried = await records.deleteRecord({ scope: scope(company, 'run-1', 'exec-2/steps[1]', 'd1') });
  t.like(retried.record, { table: 'counter', key: 'd1', version: 1n });
  t.deepEqual(retried.record?.data, {});
  const rows = await writeRowsOf(company);
  t.is(rows.length, 2);
  for (const row of rows) t.false(row.row.includes('canary-4111'), row.row);
  // A write retried after its record was deleted by someone else is refused, not answered with made-up data.
  await records.insertRecord({ scope: scope(company, 'run-1', 'exec-2/steps[2]', 'd2'), data: { n: 1 } });
  await records.deleteRecord({ scope: scope(company, 'other-run', 'exec-3/steps[0]', 'd2') });
  const error = await refusal(
    t,
    records.insertRecord({ scope: scope(company, 'run-1', 'exec-2/steps[2]', 'd2'), data: { n: 1 } }),
  );
  t.is(error.code, Code.FailedPrecondition);
  t.regex(error.rawMessage, /record "d2" of table "counter": this insert was applied once, but the record was deleted/);
});

test('the record quota refuses a new record past FLOWHOOK_RECORD_MAX_PER_COMPANY, also under a race, and frees up on delete', async (t) => {
  const tenant = await tenantWithFlows('Lifetime Quota');
  const records = recordClient(stack);
  for (let i = 1; i < MAX_RECORDS; i++)
    await records.insertRecord({ scope: scope(tenant.company, 'q', `q/${i}`, `k${i}`), data: { i } });
  // Racing for the last place: exactly one insert wins it.
  const racing = await Promise.allSettled(
    Array.from({ length: 6 }, (_, i) =>
      records.insertRecord({ scope: scope(tenant.company, 'q', `race/${i}`, `race${i}`), data: { i } }),
    ),
  );
  t.is(racing.filter((result) => result.status === 'fulfilled').length, 1);
  for (const result of racing) {
    if (result.status === 'rejected') {
      t.is((result.reason as ConnectError).code, Code.FailedPrecondition);
      t.regex(
        (result.reason as ConnectError).rawMessage,
        /company "Lifetime Quota" holds 3 records, the most FLOWHOOK_RECORD_MAX_PER_COMPANY \(3\) allows/,
      );
    }
  }
  t.is(
    Number(
      (
        await sql<{ n: string }>(
          `select count(*) as n from record r join company c on c.id = r.company_id where c.name = ?`,
          [tenant.company],
        )
      )[0]!.n,
    ),
    MAX_RECORDS,
  );
  // Changing an existing record is no new record.
  t.is(
    (await records.upsertRecord({ scope: scope(tenant.company, 'q', 'q/up', 'k1'), data: { i: 10 } })).record?.version,
    2n,
  );
  // A flow's insert fails its step with the reason in the execution's failure.
  const answer = await call(tenant, 'lifetime.upsert', '{"id": "N-new", "text": "x"}');
  t.is(answer.status, 500, answer.text);
  t.regex((await failureReasonOf(stack, answer)).reason, /FLOWHOOK_RECORD_MAX_PER_COMPANY/);
  // Another company is not affected; a delete makes room.
  const other = await createTenant(stack, 'Lifetime Quota Other');
  t.is(
    (await records.insertRecord({ scope: scope(other.company, 'q', 'q/1', 'k1'), data: { i: 1 } })).record?.version,
    1n,
  );
  await records.deleteRecord({ scope: scope(tenant.company, 'q', 'q/del', 'k1') });
  t.is((await call(tenant, 'lifetime.upsert', '{"id": "N-new", "text": "x"}')).status, 200);
});

test("rows older than the retention are purged, newer ones stay, and several purgers at once do not get in each other's way", async (t) => {
  const { company } = await createTenant(stack, 'Lifetime Purge');
  const records = recordClient(stack);
  for (let i = 0; i < 3; i++)
    await records.upsertRecord({ scope: scope(company, 'p', `old/${i}`, `p${i}`), data: { i } });
  for (let i = 0; i < 2; i++)
    await records.upsertRecord({ scope: scope(company, 'p', `new/${i}`, `p${i}`), data: { i } });
  await sql(
    `update record_write set created_at = now() - interval '2 hours' where idempotency_key like 'old/%' and company_id = (select id from company where name = ?)`,
    [company],
  );
  // Two purges at once (two engines answering the retention schedule), with a one-hour retention.
  await Promise.all([0, 1].map(() => purgeRecordWrites(stack.engine.orm, 60 * 60 * 1000)));
  t.deepEqual((await writeRowsOf(company)).map((row) => row.idempotency_key).sort(), ['new/0', 'new/1']);
  // What is gone is gone: the same key applies again (why the retention must outlast any retry).
  t.is((await records.upsertRecord({ scope: scope(company, 'p', 'old/0', 'p0'), data: { i: 0 } })).record?.version, 3n);
});

test('migration 0011 keeps the version and created flag of existing rows and drops their copies of the data', async (t) => {
  const databaseUrl = await createTestDatabase();
  const through0010 = MIGRATIONS.slice(
    0,
    MIGRATIONS.findIndex((migration) => migration.name === 'migration-0010-audit-log') + 1,
  );
  t.is(through0010.at(-1)?.name, 'migration-0010-audit-log');
  const old = await MikroORM.init({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: through0010, transactional: true, snapshot: false, silent: true },
    debug: false,
    allowGlobalContext: false,
    ensureDatabase: false,
  });
  try {
    await old.migrator.up();
    const connection = old.em.getConnection();
    await connection.execute(
      `insert into company (id, name, created_at) values ('00000000-0000-4000-8000-000000000001', 'Legacy', now())`,
    );
    await connection.execute(
      `insert into record_write (id, company_id, idempotency_key, response, created_at) values ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'legacy/steps[0]', ?, now())`,
      [
        JSON.stringify({
          record: {
            table: 't',
            key: 'k',
            data: { pan: 'canary-legacy' },
            version: 4,
            createdAt: '2026-01-01T00:00:00.000Z',
            updatedAt: '2026-01-01T00:00:00.000Z',
          },
          created: true,
        }),
      ],
    );
  } finally {
    await old.close(true);
  }
  const orm = await openOrm({ databaseUrl });
  try {
    const rows = await orm.em
      .getConnection()
      .execute<{ row: string; run_id: string; operation: string; version: number; created: boolean }[]>(
        `select row_to_json(w)::text as row, run_id, operation, version, created from record_write w`,
      );
    t.is(rows.length, 1);
    t.like(rows[0], { run_id: '', operation: 'unknown', version: 4, created: true });
    t.false(rows[0]!.row.includes('canary-legacy'), rows[0]!.row);
  } finally {
    await orm.close(true);
  }
});
