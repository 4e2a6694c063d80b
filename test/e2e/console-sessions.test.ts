// Admins see who is signed in to the console and end sessions — one person's
// or every one — from the console's listener (the admin role in every
// company) and from the CLI (`flowhook console sessions list|end`, the engine's
// admin API). An ended session's next call is refused and its page shows the
// sign-in form; the end is in the audit log; the list shows person, sign-in
// method, roles and times, never a cookie or its hash.
import { createHash } from 'node:crypto';
import test from 'ava';
import { createClient } from '@connectrpc/connect';
import { ConsoleSessionAdminService } from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { ConsoleSessions } from '../../engine/edges/console/console-sessions.ts';
import { ConsolePage } from '../support/console-page.ts';
import { runCapturing } from '../support/cli-runner.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let consoleUrl: string;
const COMPANY = 'Sessions Co';
const SESSIONS = 'flowhook.engine.v1.ConsoleSessionAdminService';

test.before(async () => {
  stack = await startStack({ env: { FLOWHOOK_CONSOLE_PORT: '0' } });
  consoleUrl = stack.engine.console!.url;
  await createTenant(stack, COMPANY);
});
test.after.always(async () => {
  await stack?.close();
});

/** A session of a person the identity provider gave these roles, opened the way the OIDC sign-in opens one; the cookie value too. */
async function personWith(
  person: string,
  roles: Record<string, 'viewer' | 'editor' | 'admin'>,
): Promise<{ page: ConsolePage; cookieValue: string }> {
  const page = new ConsolePage(consoleUrl);
  const { cookieValue } = await new ConsoleSessions(stack.engine.orm, 3_600_000).open({
    person,
    via: 'oidc',
    account: 'console-oidc',
    roles,
  });
  page.cookie = `flowhook_console_session=${cookieValue}`;
  page.csrf = (await page.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.csrfToken as string;
  return { page, cookieValue };
}

async function admin(): Promise<ConsolePage> {
  const page = new ConsolePage(consoleUrl);
  await page.signIn(stack.adminToken);
  return page;
}

const listFlows = (page: ConsolePage) => page.flowAdmin('ListFlows', { company: COMPANY });

test.serial(
  'an admin lists the sessions — person, method, roles, times — and never a cookie or its hash',
  async (t) => {
    const { cookieValue } = await personWith('lee@example.com', { [COMPANY]: 'editor' });
    const page = await admin();
    const listed = await page.call(SESSIONS, 'ListConsoleSessions');
    t.is(listed.status, 200, JSON.stringify(listed.json));
    const sessions = listed.json.sessions as Record<string, unknown>[];
    t.like(
      sessions.find((session) => session.person === 'lee@example.com'),
      { via: 'SIGN_IN_METHOD_OIDC', roles: [{ company: COMPANY, role: 'CONSOLE_ROLE_EDITOR' }] },
    );
    const lee = sessions.find((session) => session.person === 'lee@example.com')!;
    t.true(Date.parse(String(lee.expiresAt)) > Date.parse(String(lee.createdAt)));
    t.is(lee.checkedAt, undefined, 'no refresh token: the provider does not re-check it');
    t.like(
      sessions.find((session) => session.current === true),
      { person: 'bootstrap-admin', via: 'SIGN_IN_METHOD_ADMIN_TOKEN', roles: [{ role: 'CONSOLE_ROLE_ADMIN' }] },
    );
    const text = JSON.stringify(listed.json);
    t.false(text.includes(cookieValue));
    t.false(
      text.includes(createHash('sha256').update(cookieValue).digest('hex')),
      'not the cookie hash the table is keyed by',
    );
    t.false(text.includes(page.cookie!.split('=')[1]!));
  },
);

test.serial('listing and ending sessions needs the admin role in every company', async (t) => {
  const { page: companyAdmin } = await personWith('ca@example.com', { [COMPANY]: 'admin' });
  const { page: viewerEverywhere } = await personWith('ve@example.com', { '': 'viewer' });
  const { page: target } = await personWith('target@example.com', { [COMPANY]: 'viewer' });
  for (const page of [companyAdmin, viewerEverywhere]) {
    const listed = await page.call(SESSIONS, 'ListConsoleSessions');
    t.is(listed.status, 403, JSON.stringify(listed.json));
    t.regex(String(listed.json.message), /admin role in every company/);
    t.is((await page.call(SESSIONS, 'EndConsoleSessions', { person: 'target@example.com' })).status, 403);
  }
  t.is((await listFlows(target)).status, 200, 'a refused end ended nothing');
  const events = await stack.engine.orm.em
    .getConnection()
    .execute<{ person: string; outcome: string }[]>(
      `select person, outcome from audit_event where action = 'console-session.end' and target = 'target@example.com'`,
    );
  t.deepEqual(
    events.map((event) => ({ ...event })),
    [
      { person: 'ca@example.com', outcome: 'permission_denied' },
      { person: 've@example.com', outcome: 'permission_denied' },
    ],
    'refused attempts are on record with the person',
  );
});

test.serial(
  "an admin ends one person's sessions in the console: their next call is refused, the others' go on, and it is audited",
  async (t) => {
    const first = await personWith('dana@example.com', { [COMPANY]: 'editor' });
    const second = await personWith('dana@example.com', { [COMPANY]: 'editor' });
    const bystander = await personWith('bo@example.com', { [COMPANY]: 'viewer' });
    const page = await admin();
    const ended = await page.call(SESSIONS, 'EndConsoleSessions', { person: 'dana@example.com' });
    t.is(ended.status, 200, JSON.stringify(ended.json));
    t.is(ended.json.ended, 2);
    for (const { page: dana } of [first, second]) {
      t.is((await listFlows(dana)).status, 401);
      t.is(
        (await dana.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.person,
        undefined,
        'the page shows the sign-in form',
      );
    }
    t.is((await listFlows(bystander.page)).status, 200);
    t.is((await listFlows(page)).status, 200, "the admin's own session goes on");

    const again = await page.call(SESSIONS, 'EndConsoleSessions', { person: 'dana@example.com' });
    t.is(again.status, 404);
    t.regex(String(again.json.message), /no console session of "dana@example.com"/);
    for (const body of [{}, { person: 'bo@example.com', all: true }]) {
      const wrong = await page.call(SESSIONS, 'EndConsoleSessions', body);
      t.is(wrong.status, 400, JSON.stringify(body));
      t.regex(String(wrong.json.message), /name one person \(person\) or every session \(all\)/);
    }
    t.is((await listFlows(bystander.page)).status, 200, 'a refused end changed nothing');

    const audit = await page.call('flowhook.engine.v1.AuditService', 'ListAuditEvents', { action: 'console-session' });
    t.like(
      (audit.json.events as Record<string, unknown>[]).find(
        (event) => event.outcome === 'ok' && event.target === 'dana@example.com',
      ),
      {
        action: 'console-session.end',
        account: 'bootstrap-admin',
        person: 'bootstrap-admin',
      },
    );
  },
);

test.serial(
  '`flowhook console sessions list|end` through the engine: one person, then everyone (the end audited with the account)',
  async (t) => {
    const client = createClient(
      ConsoleSessionAdminService,
      createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
    );
    const cli = (...args: string[]) => runCapturing(args, { consoleSessions: { client: () => client } });
    const { page: ana } = await personWith('ana@example.com', { [COMPANY]: 'viewer', '': 'editor' });
    const mine = await admin();

    const listed = await cli('console', 'sessions', 'list');
    t.is(listed.code, 0, listed.err);
    t.regex(listed.out, /^PERSON\s+VIA\s+ROLES\s+CREATED\s+EXPIRES\s+LAST CHECK$/m);
    t.regex(listed.out, /^ana@example\.com\s+oidc\s+editor viewer:Sessions Co\s+\S+Z\s+\S+Z\s+at sign-in only$/m);
    t.regex(listed.out, /^bootstrap-admin\s+admin-token\s+admin\s+\S+Z\s+\S+Z\s+every call$/m);
    const json = await cli('console', 'sessions', 'list', '--json');
    t.true(
      (JSON.parse(json.out) as { sessions: { person: string }[] }).sessions.some(
        (session) => session.person === 'ana@example.com',
      ),
    );

    const usage = await cli('console', 'sessions', 'end');
    t.is(usage.code, 2);
    t.regex(usage.err, /name one person with --person <name>, or end every session with --all/);
    t.is((await cli('console', 'sessions', 'end', '--person', 'ana@example.com', '--all')).code, 2);
    const unknown = await cli('console', 'sessions', 'end', '--person', 'nobody@example.com');
    t.is(unknown.code, 1);
    t.regex(unknown.err, /not found: no console session of "nobody@example.com"/);

    const one = await cli('console', 'sessions', 'end', '--person', 'ana@example.com');
    t.is(one.code, 0, one.err);
    t.regex(one.out, /Ended the console sessions of ana@example\.com: 1 session\(s\)/);
    t.is((await listFlows(ana)).status, 401);
    t.is((await listFlows(mine)).status, 200);

    const all = await cli('console', 'sessions', 'end', '--all', '--json');
    t.is(all.code, 0, all.err);
    t.true((JSON.parse(all.out) as { ended: number }).ended >= 1);
    t.is((await listFlows(mine)).status, 401, 'every session ended');
    t.is((await cli('console', 'sessions', 'list')).out, 'Nobody is signed in to the console.\n');

    const events = await stack.engine.orm.em
      .getConnection()
      .execute<{ target: string | null; details: unknown; account: string; person: string | null }[]>(
        `select target, details, account, person from audit_event where action = 'console-session.end' and outcome = 'ok' and person is null order by id`,
      );
    t.deepEqual(
      events.map((event) => ({ ...event })),
      [
        { target: 'ana@example.com', details: {}, account: 'bootstrap-admin', person: null },
        { target: null, details: { all: true }, account: 'bootstrap-admin', person: null },
      ],
    );
  },
);
