// Managing Basic service users with `flowhook user …` against a real engine,
// and what their callers see right after each change: a set that cannot work
// is refused when it is given, a grant lets the next call through, a revoke
// or delete refuses it at once, and rotate-key keeps the expiry unless
// told otherwise. A grant names its scope (--company, or --all-companies said
// out loud), and a caller with no set in a company learns nothing about it.
import test from 'ava';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { cliAgainst, type CliRun } from '../support/cli-runner.ts';
import { callWebhook, deployFlow, flow, type WebhookAnswer } from '../support/webhook-helpers.ts';
import { equalTo, eventually } from '../support/eventually.ts';

const HOME = 'Users & Co';
const OTHER = 'Users Elsewhere';
const ACTIVITY = 'users.call';
let stack: TestStack;
let cli: (...args: string[]) => Promise<CliRun>;
let secret: string;
/** A second engine on the same database: its changes reach the stack's engine through the change feed. */
let otherEngine: RunningEngine;

test.before(async () => {
  stack = await startStack();
  cli = cliAgainst(stack);
  otherEngine = await runEngine(readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0' }));
  for (const company of [HOME, OTHER]) await stack.admin.createCompany({ name: company });
  ({ secret } = await deployFlow(
    stack,
    flow(HOME, 'users-call', { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { respond: { description: 'answer', statusCode: 200, body: 'ok' } },
    ]),
  ));
});
test.after.always(async () => {
  await otherEngine?.close();
  await stack?.close();
});

/** The status a Basic caller gets for the flow in HOME. */
async function callAs(name: string, accessKey: string): Promise<number> {
  const auth = `Basic ${Buffer.from(`${name}:${accessKey}`).toString('base64')}`;
  return (await callWebhook(stack, { company: HOME, activity: ACTIVITY, secret, auth })).status;
}

/** `user create … --json`, returning the key; fails the test when the command fails. */
async function createUser(t: import('ava').ExecutionContext, name: string, ...options: string[]): Promise<string> {
  const run = await cli('user', 'create', name, ...options, '--json');
  t.is(run.code, 0, run.err);
  return JSON.parse(run.out).accessKey;
}

async function userJson(name: string): Promise<{ permissionSets: { company: string }[]; accessKeyExpiresAt?: string }> {
  return JSON.parse((await cli('user', 'show', name, '--json')).out).user;
}

test('a set that cannot work is refused when given: FLOW INTEGR. for a user, FLOW ALL for an application', async (t) => {
  const created = await cli('user', 'create', 'cli-integr', '--company', HOME, '--permission-set', 'FLOW INTEGR.');
  t.is(created.code, 1);
  t.regex(
    created.err,
    /invalid argument: A service user cannot use "FLOW INTEGR\.": Basic service users need FLOW ALL \(or SUPER\); FLOW INTEGR\. is the set for identity-provider applications/,
  );
  const shown = await cli('user', 'show', 'cli-integr', '--json');
  t.is(JSON.parse(shown.out).error.code, 'not_found', 'nothing was created');

  await createUser(t, 'cli-integr-grant', '--company', HOME);
  const granted = await cli('user', 'grant', 'cli-integr-grant', '--permission-set', 'flow integr.');
  t.is(granted.code, 1);
  t.regex(granted.err, /Basic service users need FLOW ALL \(or SUPER\)/);

  const app = await cli(
    'app',
    'register',
    'cli-flow-all-app',
    '--issuer',
    'https://idp.example.test',
    '--company',
    HOME,
    '--permission-set',
    'FLOW ALL',
    '--consent',
    '--enabled',
  );
  t.is(app.code, 1);
  t.regex(app.err, /An application cannot use "FLOW ALL": applications need "FLOW INTEGR\."/);
  t.notRegex((await cli('app', 'list')).out, /cli-flow-all-app/, 'nothing was registered');
});

test('user list and show: state, key expiry, permission sets and created, never a key', async (t) => {
  const expiresAt = new Date(Date.now() + 86_400_000);
  const key = await createUser(t, 'cli-listed', '--company', HOME, '--expires-at', expiresAt.toISOString());
  t.is((await cli('user', 'grant', 'cli-listed', '--company', OTHER, '--permission-set', 'SUPER')).code, 0);
  const list = await cli('user', 'list');
  t.is(list.code, 0, list.err);
  t.regex(list.out, /^NAME\s+STATE\s+KEY EXPIRES\s+PERMISSION SETS\s+CREATED\n/);
  t.regex(
    list.out,
    new RegExp(
      `\\ncli-listed\\s+Enabled\\s+${expiresAt.toISOString().replace(/\./g, '\\.')}\\s+FLOW ALL \\(Users & Co\\), SUPER \\(Users Elsewhere\\)\\s+\\d{4}-`,
    ),
  );
  const listed = JSON.parse((await cli('user', 'list', '--json')).out).users.find(
    (user: { name: string }) => user.name === 'cli-listed',
  );
  t.like(listed, {
    enabled: true,
    accessKeyExpired: false,
    permissionSets: [
      { permissionSet: 'FLOW ALL', company: HOME, usable: true },
      { permissionSet: 'SUPER', company: OTHER, usable: true },
    ],
  });
  const shown = await cli('user', 'show', 'cli-listed');
  t.regex(
    shown.out,
    /Service user "cli-listed"\n\s+State\s+Enabled\n\s+Key expires\s+\S+\n\s+Created\s+\S+\n\s+Permission sets\s+FLOW ALL \(Users & Co\)\n\s+SUPER \(Users Elsewhere\)\n$/,
  );
  for (const output of [list.out, shown.out, JSON.stringify(listed)])
    t.false(output.includes(key), 'the key is never shown again');
});

test('a grant lets the next call through; a revoke refuses the next one at once', async (t) => {
  const key = await createUser(t, 'cli-granted', '--company', OTHER);
  t.is(await callAs('cli-granted', key), 401, 'FLOW ALL for another company only: answered like an unknown company');

  const granted = await cli('user', 'grant', 'cli-granted', '--company', HOME, '--permission-set', 'flow  all');
  t.is(granted.code, 0, granted.err);
  t.regex(granted.out, /Granted FLOW ALL \(Users & Co\) to "cli-granted"\./, 'the set in its canonical spelling');
  t.is(await callAs('cli-granted', key), 200);
  const again = await cli('user', 'grant', 'cli-granted', '--company', HOME, '--permission-set', 'FLOW ALL');
  t.is(again.code, 0, 'a repeated grant is not an error');
  t.regex(again.out, /already has FLOW ALL \(Users & Co\); nothing changed/);
  t.is((await userJson('cli-granted')).permissionSets.length, 2);

  const revoked = await cli('user', 'revoke', 'cli-granted', '--company', HOME, '--permission-set', 'FLOW ALL');
  t.is(revoked.code, 0, revoked.err);
  t.regex(
    revoked.out,
    /warning: User "cli-granted" can no longer call in company "Users & Co"; it still can in: "Users Elsewhere"/,
  );
  t.is(await callAs('cli-granted', key), 401, 'refused at once, not after a cache expires');

  const notHeld = await cli(
    'user',
    'revoke',
    'cli-granted',
    '--company',
    HOME,
    '--permission-set',
    'FLOW ALL',
    '--json',
  );
  t.is(notHeld.code, 1);
  t.like(JSON.parse(notHeld.out).error, { code: 'not_found' });
  t.regex(
    notHeld.err,
    /User "cli-granted" has no "FLOW ALL" grant for company "Users & Co"; its grants: FLOW ALL \(Users Elsewhere\)/,
  );

  // Every company only when asked for: no scope is refused, naming both ways, and grants nothing.
  const unscoped = await cli('user', 'grant', 'cli-granted', '--permission-set', 'FLOW ALL');
  t.is(unscoped.code, 1);
  t.regex(
    unscoped.err,
    /needs a scope: flowhook user grant cli-granted --permission-set 'FLOW ALL' --company <name> lets it call in that company; --all-companies lets it call in every company/,
  );
  t.is(await callAs('cli-granted', key), 401);
  t.is((await cli('user', 'grant', 'cli-granted', '--permission-set', 'FLOW ALL', '--all-companies')).code, 0);
  t.regex(
    (await cli('user', 'grant', 'cli-granted', '--permission-set', 'FLOW ALL', '--all-companies')).out,
    /already has FLOW ALL \(all companies\); nothing changed/,
  );
  t.is(await callAs('cli-granted', key), 200, 'an all-companies grant covers every company');
  const everywhere = await cli('user', 'revoke', 'cli-granted', '--permission-set', 'FLOW ALL');
  t.regex(
    everywhere.out,
    /Revoked FLOW ALL \(all companies\)[^\n]*\n {2}permission sets: FLOW ALL \(Users Elsewhere\)\n {2}warning: User "cli-granted" no longer calls in every company; it now can only in: "Users Elsewhere"/,
  );
  t.is(await callAs('cli-granted', key), 401);

  const last = await cli('user', 'revoke', 'cli-granted', '--company', OTHER, '--permission-set', 'FLOW ALL');
  t.is(last.code, 0, 'revoking the last grant is allowed');
  t.regex(
    last.out,
    /warning: User "cli-granted" has no permission set left that lets it call: every call now gets 401/,
  );
  t.regex(
    (await cli('user', 'show', 'cli-granted')).out,
    /No permission set lets it call \(calls get 401\): flowhook user grant cli-granted/,
  );

  const nowhere = await cli('user', 'grant', 'cli-granted', '--company', 'Nowhere_Ltd', '--permission-set', 'FLOW ALL');
  t.regex(
    nowhere.err,
    /not found: Company "Nowhere_Ltd" does not exist; create it with: flowhook company create Nowhere_Ltd/,
  );
});

test('delete needs --yes; then the next call is 401 and the name can be used again', async (t) => {
  const key = await createUser(t, 'cli-deleted', '--company', HOME);
  t.is(await callAs('cli-deleted', key), 200);
  const unconfirmed = await cli('user', 'delete', 'cli-deleted');
  t.is(unconfirmed.code, 1);
  t.regex(unconfirmed.err, /not deleted: [^\n]*Confirm with: flowhook user delete cli-deleted --yes/);
  t.is(await callAs('cli-deleted', key), 200, 'nothing was deleted');

  const deleted = await cli('user', 'delete', 'cli-deleted', '--yes');
  t.is(deleted.code, 0, deleted.err);
  t.regex(deleted.out, /Deleted service user "cli-deleted" and its grants \(FLOW ALL \(Users & Co\)\)/);
  t.is(await callAs('cli-deleted', key), 401);
  t.is(JSON.parse((await cli('user', 'show', 'cli-deleted', '--json')).out).error.code, 'not_found');

  const reused = await createUser(t, 'cli-deleted', '--company', OTHER);
  t.deepEqual(
    (await userJson('cli-deleted')).permissionSets.map((held) => held.company),
    [OTHER],
    'the old grants are gone',
  );
  t.is(await callAs('cli-deleted', key), 401, 'the old key does not come back with the name');
  t.is(await callAs('cli-deleted', reused), 401, 'the new user is known, without a grant here');
  t.regex((await cli('user', 'delete', 'cli-nobody', '--yes')).err, /not found: User "cli-nobody" does not exist/);
});

test('rotate-key keeps the expiry, --expires-at changes it, --no-expiry clears it; the old key is 401', async (t) => {
  const first = new Date(Date.now() + 86_400_000);
  const second = new Date(Date.now() + 2 * 86_400_000);
  const original = await createUser(t, 'cli-rotating', '--company', HOME, '--expires-at', first.toISOString());
  const regenerate = async (...options: string[]) => {
    const run = await cli('user', 'rotate-key', 'cli-rotating', ...options, '--json');
    t.is(run.code, 0, run.err);
    return JSON.parse(run.out) as { accessKey: string; accessKeyExpiresAt?: string };
  };

  const kept = await regenerate();
  t.is(new Date(kept.accessKeyExpiresAt!).getTime(), first.getTime());
  t.is((await userJson('cli-rotating')).accessKeyExpiresAt, kept.accessKeyExpiresAt);
  t.is(await callAs('cli-rotating', original), 401, 'the old key stops working at once');
  t.is(await callAs('cli-rotating', kept.accessKey), 200);

  const changed = await regenerate('--expires-at', second.toISOString());
  t.is(new Date(changed.accessKeyExpiresAt!).getTime(), second.getTime());
  t.is(await callAs('cli-rotating', kept.accessKey), 401);

  const cleared = await regenerate('--no-expiry');
  t.is(cleared.accessKeyExpiresAt, undefined, 'an unset expiry is left out of the JSON');
  const human = await cli('user', 'rotate-key', 'cli-rotating');
  t.regex(human.out, /New access key for "cli-rotating" \(does not expire, as before\)/);
  t.regex((await cli('user', 'show', 'cli-rotating')).out, /Key expires\s+never/);
});

test('rotate-key refuses to keep an expiry that has passed, and says how to give a new one', async (t) => {
  await createUser(t, 'cli-expired', '--company', HOME, '--expires-at', new Date(Date.now() + 1000).toISOString());
  const expired = /\ncli-expired\s+Enabled\s+expired \d{4}-/;
  t.regex(
    (
      await eventually(() => cli('user', 'list'), {
        until: (listed) => expired.test(listed.out),
        what: 'the key listed as expired',
        show: (listed) => listed.out,
      })
    ).out,
    expired,
  );
  const kept = await cli('user', 'rotate-key', 'cli-expired', '--json');
  t.is(kept.code, 1);
  t.is(JSON.parse(kept.out).error.code, 'failed_precondition');
  t.regex(
    kept.err,
    /expired at [^;]+; give a new one: flowhook user rotate-key cli-expired --expires-at <ISO 8601> \(or --no-expiry\)/,
  );
  const renewed = await cli('user', 'rotate-key', 'cli-expired', '--no-expiry', '--json');
  t.is(renewed.code, 0, renewed.err);
  t.is(await callAs('cli-expired', JSON.parse(renewed.out).accessKey), 200);
});

test('a revoke or delete made through another engine refuses the next call here, warm cache or not', async (t) => {
  const otherCli = cliAgainst({
    admin: createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken }),
  });
  const key = await createUser(t, 'cli-remote', '--company', HOME);
  t.is(await callAs('cli-remote', key), 200);
  t.is(await callAs('cli-remote', key), 200, 'now served from the warm cache');
  t.is((await otherCli('user', 'grant', 'cli-remote', '--company', OTHER, '--permission-set', 'FLOW ALL')).code, 0);
  t.is((await otherCli('user', 'revoke', 'cli-remote', '--company', HOME, '--permission-set', 'FLOW ALL')).code, 0);
  t.is(await eventually(() => callAs('cli-remote', key), { until: equalTo(401) }), 401, 'no set left in HOME');
  t.is((await otherCli('user', 'grant', 'cli-remote', '--company', HOME, '--permission-set', 'FLOW ALL')).code, 0);
  t.is(await eventually(() => callAs('cli-remote', key), { until: equalTo(200) }), 200);
  t.is((await otherCli('user', 'delete', 'cli-remote', '--yes')).code, 0);
  t.is(await eventually(() => callAs('cli-remote', key), { until: equalTo(401) }), 401);
});

test('user create needs --company or --all-companies; an all-companies user calls everywhere and is listed as such', async (t) => {
  const unscoped = await cli('user', 'create', 'cli-unscoped');
  t.is(unscoped.code, 1);
  t.regex(
    unscoped.err,
    /invalid argument: a service user's permission set needs a scope: flowhook user create cli-unscoped --company <name> lets it call in that company; --all-companies lets it call in every company/,
  );
  t.is(
    JSON.parse((await cli('user', 'show', 'cli-unscoped', '--json')).out).error.code,
    'not_found',
    'nothing was created',
  );
  const both = await stack.admin
    .createUser({ name: 'cli-both', company: HOME, allCompanies: true })
    .catch((error: Error) => error);
  t.regex(String(both), /give either a company \(--company\) or all companies \(--all-companies\), not both/);

  const key = await createUser(t, 'cli-everywhere', '--all-companies');
  t.is(await callAs('cli-everywhere', key), 200);
  t.regex((await cli('user', 'list')).out, /\ncli-everywhere\s+Enabled\s+never\s+FLOW ALL \(all companies\)/);
});

test('app register assigns a set only with --company or --all-companies; updating without a set needs neither', async (t) => {
  const issuer = 'https://idp.example.test';
  const unscoped = await cli(
    'app',
    'register',
    'cli-unscoped-app',
    '--issuer',
    issuer,
    '--permission-set',
    'FLOW INTEGR.',
  );
  t.is(unscoped.code, 1);
  t.regex(
    unscoped.err,
    /invalid argument: the permission set "FLOW INTEGR\." needs a scope: --company <name> assigns it in that company; --all-companies assigns it in every company/,
  );
  t.notRegex((await cli('app', 'list')).out, /cli-unscoped-app/, 'nothing was registered');
  t.is(
    (
      await cli(
        'app',
        'register',
        'cli-scoped-app',
        '--issuer',
        issuer,
        '--company',
        HOME,
        '--permission-set',
        'FLOW INTEGR.',
      )
    ).code,
    0,
  );
  t.is(
    (await cli('app', 'register', 'cli-scoped-app', '--issuer', issuer, '--consent', '--enabled')).code,
    0,
    'consent and State alone assign nothing, so need no scope',
  );
  t.is(
    (
      await cli(
        'app',
        'register',
        'cli-scoped-app',
        '--issuer',
        issuer,
        '--permission-set',
        'FLOW INTEGR.',
        '--all-companies',
      )
    ).code,
    0,
  );
  t.regex(
    (await cli('app', 'list')).out,
    /\ncli-scoped-app\s+\S+\s+any\s+Enabled\s+yes\s+FLOW INTEGR\. \(Users & Co\), FLOW INTEGR\. \(all companies\)|\ncli-scoped-app\s+\S+\s+any\s+Enabled\s+yes\s+FLOW INTEGR\. \(all companies\), FLOW INTEGR\. \(Users & Co\)/,
  );
  const alone = await cli('app', 'register', 'cli-scoped-app', '--issuer', issuer, '--all-companies');
  t.is(alone.code, 1);
  t.regex(alone.err, /all companies \(--all-companies\) is the scope of a permission set; give the set too/);

  const revoked = await cli('app', 'revoke-consent', 'cli-scoped-app');
  t.is(revoked.code, 0, revoked.err);
  t.regex(
    revoked.out,
    /Revoked consent of application cli-scoped-app: its tokens are refused from the next call on\.\n {2}state Enabled, consent no, /,
  );
  t.regex(
    (await cli('app', 'list')).out,
    /\ncli-scoped-app\s+\S+\s+any\s+Enabled\s+no\s+FLOW INTEGR\./,
    'sets and State stay',
  );
  t.regex(
    (await cli('app', 'revoke-consent', 'cli-unscoped-app')).err,
    /not found: Application "cli-unscoped-app" is not registered/,
  );
});

test('a caller with no set in a company gets one answer whatever it names there; one with a set gets 404 for an unknown activity and 401 for a wrong secret', async (t) => {
  const outsider = await createUser(t, 'cli-outsider', '--company', OTHER);
  const insider = await createUser(t, 'cli-insider', '--company', HOME);
  const basic = (name: string, key: string) => `Basic ${Buffer.from(`${name}:${key}`).toString('base64')}`;
  const call = (auth: string, company: string, activity: string, callSecret: string) =>
    callWebhook(stack, { company, activity, secret: callSecret, auth });
  const shape = (answer: WebhookAnswer) => ({
    status: answer.status,
    text: answer.text,
    contentType: answer.headers.get('content-type'),
    authenticate: answer.headers.get('www-authenticate'),
  });

  const asOutsider = (company: string, activity: string, callSecret: string) =>
    call(basic('cli-outsider', outsider), company, activity, callSecret).then(shape);
  const known = await asOutsider(HOME, ACTIVITY, secret);
  t.like(known, { status: 401, text: 'Unauthorized' });
  t.deepEqual(await asOutsider(HOME, ACTIVITY, 'W'.repeat(32)), known, 'wrong secret');
  t.deepEqual(await asOutsider(HOME, 'no.such.activity', secret), known, 'unknown activity');
  t.deepEqual(await asOutsider('No Such Company', ACTIVITY, secret), known, 'unknown company');
  t.deepEqual(await asOutsider('users & co', ACTIVITY, secret), known, 'no spelling hint about the real company');

  // For a caller with a set in the company the flow is looked up before the secret: unknown activity 404, wrong secret 401.
  t.is((await call(basic('cli-insider', insider), HOME, 'no.such.activity', secret)).status, 404);
  t.is((await call(basic('cli-insider', insider), HOME, ACTIVITY, 'W'.repeat(32))).status, 401);
  t.is((await call(basic('cli-insider', insider), HOME, ACTIVITY, secret)).status, 200);
  const everywhere = await createUser(t, 'cli-all-companies', '--all-companies');
  const unknownCompany = await call(basic('cli-all-companies', everywhere), 'No Such Company', ACTIVITY, secret);
  t.is(unknownCompany.status, 404, 'an all-companies caller is told the company does not exist');
});
