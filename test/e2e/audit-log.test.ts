// The audit log against a real engine and PostgreSQL: admin actions by two
// accounts (the bootstrap admin and a service account), among them a hook
// secret, a connection secret and a webhook secret rotation and a token
// rotation, are each recorded once with who, what, about which company and
// how it ended; reads and calls the gate refused are not. `flowhook audit
// list` shows them newest first with every filter, and none of the secrets
// appears in the table or in anything the CLI prints. An engine whose audit
// table is gone still answers admin calls, and says so in a warning.
import test from 'ava';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { canConnect, findFreePort } from '../../bin/embedded/free-port.ts';
import { create, fromJson } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import pg from 'pg';
import { createAdminClient, createAdminTransport, type AdminClient } from '../../bin/cli/admin-client.ts';
import { AuditService, type ListAuditEventsResponseJson } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import {
  ConnectionSettingsSchema,
  ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { runCapturing } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { FLOWHOOK } from '../support/flowhook-start.ts';
import { provisionAccountsBeforeEngine } from '../support/service-accounts.ts';
import { createTestDatabase, startStack, testInfrastructure, type TestStack } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';
import { purgeAuditEvents } from '../../engine/domain/audit/audit-purge.ts';

const COMPANY = 'Audit Co';
const OTHER = 'Other Co';
const HOOK_SECRET = 'whsec_YXVkaXQtbG9nLWtub3duLWhvb2stc2VjcmV0LXZhbHVl';
const CONNECTION_SECRET = 'audit-log-known-connection-api-key-7f3a9c';

interface Run {
  out: string;
  err: string;
  code: number;
}

/** `flowhook audit …` in this process, as the bootstrap admin. */
function auditCli(stack: TestStack): (...args: string[]) => Promise<Run> {
  const client = createClient(
    AuditService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  );
  return (...args) => runCapturing(args, { audit: { client: () => client } });
}

/** The real `flowhook` binary (main.ts registers the command). */
function cliProcess(env: Record<string, string>, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { out: '', err: '', code: 0 };
    child.stdout.on('data', (chunk: Buffer) => (run.out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (run.err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ...run, code: code ?? -1 }));
  });
}

const events = (run: Run) => (JSON.parse(run.out) as ListAuditEventsResponseJson).events ?? [];

let stack: TestStack;
let operator: AdminClient;
const secretsSeen: string[] = [HOOK_SECRET, CONNECTION_SECRET];

test.before(async () => {
  stack = await startStack({ withoutWorker: true });
  const admin = stack.admin;
  await admin.createCompany({ name: COMPANY });
  const applied = await admin.applyFlow({
    flow: fromJson(
      FlowSchema,
      flow(COMPANY, 'orders', { activity: 'orders.created', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
        { respond: { description: 'answer', statusCode: 200, body: 'ok' } },
      ]) as never,
    ),
    publish: true,
  });
  secretsSeen.push(applied.secret);
  const rotated = await admin.rotateSecret({ company: COMPANY, activity: 'orders.created' });
  secretsSeen.push(rotated.secret);
  await admin.setHookSecret({ company: COMPANY, activity: 'payments.stripe', secret: HOOK_SECRET, overlapSeconds: 60 });
  await admin.setConnection({
    company: COMPANY,
    name: 'erp',
    settings: create(ConnectionSettingsSchema, {
      type: ConnectionType.API_KEY,
      baseUrl: 'https://erp.example.test/api',
      headerName: 'X-Api-Key',
    }),
    secret: CONNECTION_SECRET,
  });
  // A read: never recorded.
  await admin.listCompanies({});
  // A failed attempt: recorded with its code.
  await admin.publishFlow({ company: COMPANY, name: 'no-such-flow', version: 1 }).catch((error: unknown) => {
    if (!(error instanceof ConnectError) || error.code !== Code.NotFound) throw error;
  });
  // A second admin, by its service account; its token (and the rotated one) must not be recorded.
  const created = await admin.createServiceAccount({
    name: 'audit-ops',
    scope: 'admin',
    companies: [],
    allCompanies: false,
    forwardsCallers: false,
  });
  secretsSeen.push(created.token);
  operator = createAdminClient({ engineUrl: stack.engineUrl, adminToken: created.token });
  await operator.createCompany({ name: OTHER });
  await operator.setCompanyEgress({ company: OTHER, allow: ['api.other.example.test'], clear: false });
  const rotatedToken = await admin.rotateServiceAccountToken({ name: 'test-records' });
  secretsSeen.push(rotatedToken.token);
});

test.after.always(async () => {
  await stack?.close();
});

test('each admin action is recorded once: who, what, about what, how it ended — newest first', async (t) => {
  const run = await auditCli(stack)('audit', 'list', '--json');
  t.is(run.code, 0, run.err);
  const listed = events(run).map((e) => [e.account, e.action, e.company, e.target, e.outcome]);
  t.deepEqual(listed, [
    ['bootstrap-admin', 'service-account.rotate-token', '', 'test-records', 'ok'],
    ['audit-ops', 'company.set-egress', OTHER, '', 'ok'],
    ['audit-ops', 'company.create', OTHER, '', 'ok'],
    ['bootstrap-admin', 'service-account.create', '', 'audit-ops', 'ok'],
    ['bootstrap-admin', 'flow.publish', COMPANY, 'no-such-flow', 'not_found'],
    ['bootstrap-admin', 'connection.set', COMPANY, 'erp', 'ok'],
    ['bootstrap-admin', 'hook-secret.set', COMPANY, 'payments.stripe', 'ok'],
    ['bootstrap-admin', 'webhook-secret.rotate', COMPANY, 'orders.created', 'ok'],
    ['bootstrap-admin', 'flow.apply', COMPANY, 'orders', 'ok'],
    ['bootstrap-admin', 'company.create', COMPANY, '', 'ok'],
  ]);
  const byAction = new Map(events(run).map((e) => [e.action, e]));
  t.deepEqual(JSON.parse(byAction.get('hook-secret.set')!.detailsJson!), { overlapSeconds: 60 });
  t.deepEqual(JSON.parse(byAction.get('flow.publish')!.detailsJson!), { version: 1 });
  t.deepEqual(JSON.parse(byAction.get('service-account.create')!.detailsJson!), { scope: 'admin' });
  t.is(byAction.get('flow.apply')!.method, 'flowhook.engine.v1.FlowAdminService/ApplyFlow');
  // Ids increase with time.
  const ids = events(run).map((e) => BigInt(e.id!));
  t.deepEqual(
    [...ids].sort((a, b) => (a > b ? -1 : 1)),
    ids,
  );
});

test('filters: account, company, action or its kind, time window, limit', async (t) => {
  const cli = auditCli(stack);
  const actions = async (...args: string[]) => {
    const run = await cli('audit', 'list', '--json', ...args);
    t.is(run.code, 0, run.err);
    return events(run).map((e) => e.action);
  };
  t.deepEqual(await actions('--account', 'audit-ops'), ['company.set-egress', 'company.create']);
  t.deepEqual(await actions('--company', OTHER), ['company.set-egress', 'company.create']);
  t.deepEqual(await actions('--action', 'company'), ['company.set-egress', 'company.create', 'company.create']);
  t.deepEqual(await actions('--action', 'company.create', '--account', 'bootstrap-admin'), ['company.create']);
  // A kind matches whole words only: `comp` is no kind.
  t.deepEqual(await actions('--action', 'comp'), []);
  t.deepEqual(await actions('--limit', '2'), ['service-account.rotate-token', 'company.set-egress']);
  t.deepEqual(await actions('--since', '1h', '--company', COMPANY, '--limit', '1'), ['flow.publish']);
  t.deepEqual(await actions('--until', '1h'), []);
  t.deepEqual(await actions('--since', '2999-01-01T00:00:00Z'), []);
  const refused = await cli('audit', 'list', '--json', '--since', '2030-01-01', '--until', '2020-01-01');
  t.is(refused.code, 1);
  t.regex(refused.out, /"invalid_argument"/);
  const human = await cli('audit', 'list', '--company', COMPANY, '--action', 'hook-secret');
  t.is(human.code, 0, human.err);
  t.regex(
    human.out,
    /^TIME +ACCOUNT +ACTION +COMPANY +TARGET +OUTCOME +DETAILS\n\S+Z +bootstrap-admin +hook-secret\.set +Audit Co +payments\.stripe +ok +\{"overlapSeconds":60\}\n$/,
  );
});

test('no secret, token or key appears in the audit table or in what the CLI prints', async (t) => {
  t.is(secretsSeen.length, 6);
  for (const secret of secretsSeen) t.true(secret.length >= 20, 'a real secret was returned');
  const db = new pg.Client({ connectionString: stack.env.FLOWHOOK_DATABASE_URL });
  await db.connect();
  let table: string;
  try {
    const rows = await db.query('select row_to_json(a)::text as row from audit_event a');
    t.is(rows.rowCount, 10);
    table = rows.rows.map((r: { row: string }) => r.row).join('\n');
  } finally {
    await db.end();
  }
  const printed = [
    (await auditCli(stack)('audit', 'list', '--json')).out,
    (await auditCli(stack)('audit', 'list')).out,
  ].join('\n');
  t.regex(printed, /hook-secret\.set/);
  for (const secret of secretsSeen) {
    t.false(table.includes(secret), 'a secret is in the audit table');
    t.false(printed.includes(secret), 'a secret is in the CLI output');
  }
});

test('reading the audit log needs an admin account, and is itself not recorded', async (t) => {
  const records = createClient(
    AuditService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.tokens.worker }),
  );
  const error = await t.throwsAsync(records.listAuditEvents({}));
  t.is(ConnectError.from(error).code, Code.PermissionDenied);
  t.regex(ConnectError.from(error).message, /scope "admin"/);
  // Neither the refused call above (the gate names no proven account) nor another account's read is recorded.
  t.true((await operator.listServiceAccounts({})).accounts.length > 0);
  const run = await auditCli(stack)('audit', 'list', '--json');
  t.is(events(run).length, 10);
  t.false(events(run).some((e) => e.action?.startsWith('audit')));
});

test('the flowhook binary has `audit list` and reads FLOWHOOK_ENGINE_URL and FLOWHOOK_ADMIN_TOKEN', async (t) => {
  const run = await cliProcess({ FLOWHOOK_ENGINE_URL: stack.engineUrl, FLOWHOOK_ADMIN_TOKEN: stack.adminToken }, [
    'audit',
    'list',
    '--json',
    '--account',
    'audit-ops',
    '--limit',
    '1',
  ]);
  t.is(run.code, 0, run.err);
  t.deepEqual(
    events(run).map((e) => [e.action, e.company]),
    [['company.set-egress', OTHER]],
  );
  // Without a token the CLI says what is missing, before any call.
  const missing = await cliProcess(
    { FLOWHOOK_ENGINE_URL: stack.engineUrl, FLOWHOOK_DATA_DIR: '/nonexistent-flowhook-data' },
    ['audit', 'list'],
  );
  t.is(missing.code, 1);
  t.regex(missing.err, /FLOWHOOK_ADMIN_TOKEN/);
});

test('a failed audit write does not fail the admin call: the engine logs a warning without values', async (t) => {
  const databaseUrl = await createTestDatabase();
  await provisionAccountsBeforeEngine(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('alter table audit_event rename to audit_event_elsewhere');
  } finally {
    await db.end();
  }
  const port = await findFreePort();
  const adminToken = randomBytes(24).toString('base64url');
  const env = {
    PATH: process.env.PATH ?? '',
    FLOWHOOK_DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: testInfrastructure().temporalAddress,
    FLOWHOOK_TASK_QUEUE: `test-${randomUUID()}`,
    FLOWHOOK_ENGINE_PORT: String(port),
    FLOWHOOK_ENGINE_METRICS_PORT: '0',
    FLOWHOOK_ADMIN_TOKEN: adminToken,
    FLOWHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    FLOWHOOK_LOG_LEVEL: 'debug',
  };
  let output = '';
  const engine = spawn(process.execPath, [FLOWHOOK, 'engine'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  engine.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  engine.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => engine.once('exit', resolve));
  try {
    const listening = async () => {
      if (engine.exitCode !== null) throw new Error(`the engine did not start:\n${output}`);
      return canConnect('127.0.0.1', port);
    };
    await eventually(listening, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'the engine listening',
      show: () => `not yet; output so far:\n${output}`,
    });
    const admin = createAdminClient({ engineUrl: `http://127.0.0.1:${port}`, adminToken });
    await admin.createCompany({ name: 'Unaudited Co' });
    await admin.setHookSecret({ company: 'Unaudited Co', activity: 'orders.paid', secret: HOOK_SECRET });
    t.deepEqual(
      (await admin.listHookSecrets({ company: 'Unaudited Co' })).secrets.map((s) => s.activity),
      ['orders.paid'],
    );
    await eventually(() => (output.match(/audit event not recorded/g) ?? []).length, {
      until: (warnings) => warnings >= 2,
      what: 'two "audit event not recorded" warnings',
    });
    const warnings = output
      .split('\n')
      .filter((line) => line.includes('audit event not recorded'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    t.deepEqual(
      warnings.map((w) => [w.level, w.method, w.action]),
      [
        [40, 'flowhook.engine.v1.FlowAdminService/CreateCompany', 'company.create'],
        [40, 'flowhook.engine.v1.HookSecretAdminService/SetHookSecret', 'hook-secret.set'],
      ],
    );
    t.regex(String(warnings[0]!.reason), /42P01/);
    t.false(output.includes(HOOK_SECRET));
    t.false(
      warnings.some((w) => JSON.stringify(w).includes('Unaudited Co')),
      'the warning quotes no request values',
    );
  } finally {
    engine.kill('SIGTERM');
    await exited;
  }
});

// Serial, so it runs before the other tests list the table, and it removes what it added.
test.serial(
  'FLOWHOOK_AUDIT_RETENTION: rows older than the retention are deleted by the purge, newer ones stay, purges at once skip each other',
  async (t) => {
    const sql = (text: string, params: unknown[] = []) =>
      stack.engine.orm.em.getConnection().execute<Record<string, unknown>[]>(text, params);
    const account = `retention-${randomUUID()}`;
    t.teardown(() => sql('delete from audit_event where account = ?', [account]));
    const insert = (ageHours: number) =>
      sql(
        `insert into audit_event (at, account, action, method, outcome, details) values (now() - make_interval(hours => ?), ?, 'company.create', 'x', 'ok', '{}')`,
        [ageHours, account],
      );
    for (const hours of [24 * 400, 24 * 3, 24 * 3, 1]) await insert(hours);
    const left = async () =>
      Number((await sql('select count(*)::int as n from audit_event where account = ?', [account]))[0]!.n);
    t.is(await left(), 4);
    // Two purges at once (two engines answering the retention schedule), two days of retention: the three
    // older rows go, in batches that skip each other's, each deleted once.
    const deleted = await Promise.all([0, 1].map(() => purgeAuditEvents(stack.engine.orm, 2 * 86_400_000)));
    t.is(deleted[0]! + deleted[1]!, 3);
    t.is(await left(), 1);
    t.is(await purgeAuditEvents(stack.engine.orm, 2 * 86_400_000), 0, 'nothing left to delete');
    // The other tests' events (seconds old) are all still there.
    t.true(
      Number((await sql("select count(*)::int as n from audit_event where at > now() - interval '1 hour'"))[0]!.n) > 1,
    );
  },
);
