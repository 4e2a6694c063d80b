// `flowhook app …` and `flowhook user list|show|grant|revoke|delete|
// rotate-key|enable|disable` as an operator sees them: the real commander
// program and Connect client against in-memory AppAdminService and
// UserAdminService (the engine's own rules are tested end to end in
// test/e2e/user-admin-cli.test.ts).
import test from 'ava';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createRouterTransport, type ServiceImpl } from '@connectrpc/connect';
import {
  AppAdminService,
  AppSchema,
  AppState,
  type App,
} from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import {
  UserAdminService,
  UserPermissionSetSchema,
  UserSchema,
  type RegenerateUserKeyRequest,
  type User,
} from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { adminClientOn } from '../../bin/cli/admin-client.ts';
import { runCapturing } from '../support/cli-runner.ts';

function fakeEngine() {
  const apps = new Map<string, App>();
  const created = timestampFromDate(new Date('2025-01-02T03:04:05Z'));
  const users = new Map<string, User>([
    [
      'svc-erp',
      create(UserSchema, {
        name: 'svc-erp',
        enabled: true,
        createdAt: created,
        permissionSets: [{ permissionSet: 'FLOW ALL', company: 'Acme', usable: true }],
      }),
    ],
  ]);
  const regenerations: RegenerateUserKeyRequest[] = [];
  const userNamed = (name: string) => {
    const user = users.get(name);
    if (!user)
      throw new ConnectError(`User "${name}" does not exist; list users with: flowhook user list`, Code.NotFound);
    return user;
  };
  const appImpl: ServiceImpl<typeof AppAdminService> = {
    registerApp(request) {
      // The engine's rule (caller-permission-sets.ts): FLOW INTEGR. is the one set an application can have.
      if (request.permissionSet && request.permissionSet !== 'FLOW INTEGR.') {
        throw new ConnectError(
          `An application cannot use "${request.permissionSet}": applications need "FLOW INTEGR."`,
          Code.InvalidArgument,
        );
      }
      if (!request.issuer) throw new ConnectError('issuer: required', Code.InvalidArgument);
      // The engine's rule (applications.ts): a set names its scope, one company or all of them.
      if (request.permissionSet && !request.company && !request.allCompanies)
        throw new ConnectError(
          'the permission set needs a scope: --company <name> or --all-companies',
          Code.InvalidArgument,
        );
      const created = !apps.has(request.clientId);
      const app =
        apps.get(request.clientId) ?? create(AppSchema, { clientId: request.clientId, state: AppState.DISABLED });
      app.issuer = request.issuer.replace(/\/+$/, '');
      if (request.tenantId) app.tenantId = request.tenantId;
      if (request.anyTenant) app.tenantId = '';
      if (request.description) app.description = request.description;
      if (request.consentGranted) app.consentGranted = true;
      if (request.state !== AppState.UNSPECIFIED) app.state = request.state;
      if (request.permissionSet)
        app.permissionSets.push({
          $typeName: 'flowhook.engine.v1.AppPermissionSet',
          permissionSet: request.permissionSet,
          company: request.company,
        });
      apps.set(app.clientId, app);
      return { app, created };
    },
    setAppState(request) {
      const app = apps.get(request.clientId);
      if (!app || (request.issuer && request.issuer !== app.issuer))
        throw new ConnectError(`Application "${request.clientId}" is not registered`, Code.NotFound);
      app.state = request.state;
      return { app };
    },
    revokeAppConsent(request) {
      const app = apps.get(request.clientId);
      if (!app || (request.issuer && request.issuer !== app.issuer))
        throw new ConnectError(`Application "${request.clientId}" is not registered`, Code.NotFound);
      const wasGranted = app.consentGranted;
      app.consentGranted = false;
      return { app, wasGranted };
    },
    listApps() {
      return { apps: [...apps.values()] };
    },
  };
  const userImpl: ServiceImpl<typeof UserAdminService> = {
    listUsers() {
      return { users: [...users.values()] };
    },
    getUser(request) {
      return { user: userNamed(request.name) };
    },
    grantUserPermission(request) {
      // The CLI passes the scope as asked; the real engine's refusal is tested end to end (user-admin-cli).
      if (!request.company && !request.allCompanies)
        throw new ConnectError("a service user's permission set needs a scope", Code.InvalidArgument);
      const user = userNamed(request.name);
      const alreadyGranted = user.permissionSets.some(
        (held) => held.permissionSet === request.permissionSet && held.company === request.company,
      );
      if (!alreadyGranted)
        user.permissionSets.push({
          $typeName: 'flowhook.engine.v1.UserPermissionSet',
          permissionSet: request.permissionSet,
          company: request.company,
          usable: true,
        });
      return {
        user,
        alreadyGranted,
        granted: { permissionSet: request.permissionSet, company: request.company, usable: true },
      };
    },
    revokeUserPermission(request) {
      const user = userNamed(request.name);
      user.permissionSets = user.permissionSets.filter(
        (held) => !(held.permissionSet === request.permissionSet && held.company === request.company),
      );
      const warnings =
        user.permissionSets.length === 0 ? [`User "${user.name}" has no permission set left that lets it call`] : [];
      return {
        user,
        warnings,
        revoked: { permissionSet: request.permissionSet, company: request.company, usable: true },
      };
    },
    deleteUser(request) {
      const user = userNamed(request.name);
      users.delete(request.name);
      return { user };
    },
    regenerateUserKey(request) {
      const user = userNamed(request.name);
      regenerations.push(request);
      if (request.accessKeyExpiresAt) user.accessKeyExpiresAt = request.accessKeyExpiresAt;
      if (request.clearExpiry) user.accessKeyExpiresAt = undefined;
      return { name: request.name, accessKey: 'K'.repeat(44), accessKeyExpiresAt: user.accessKeyExpiresAt };
    },
    setUserState(request) {
      userNamed(request.name).enabled = request.enabled;
      return { name: request.name, enabled: request.enabled };
    },
  };
  const transport = createRouterTransport(({ service }) => {
    service(AppAdminService, appImpl);
    service(UserAdminService, userImpl);
  });
  // The services this fake does not serve answer unimplemented.
  const client = adminClientOn(transport);
  return { client, apps, users, regenerations };
}

function flowhook(engine: ReturnType<typeof fakeEngine>, ...args: string[]) {
  return runCapturing(args, { admin: { client: engine.client } });
}

const ISSUER = 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0';

test('app register adds the application and says what is missing before its tokens are accepted', async (t) => {
  const engine = fakeEngine();
  const first = await flowhook(
    engine,
    'app',
    'register',
    'erp-client',
    '--issuer',
    ISSUER,
    '--company',
    'Acme',
    '--permission-set',
    'FLOW INTEGR.',
    '--description',
    'ERP',
  );
  t.is(first.code, 0, first.err);
  t.regex(first.out, /Registered application erp-client\./);
  t.regex(
    first.out,
    /state Disabled, consent no, permission sets: FLOW INTEGR\. \(Acme\)\n {2}issuer https:\/\/login\.microsoftonline\.com\/\S+\/v2\.0, tenant any/,
  );
  t.true(
    first.out.includes(
      `refused until consent is granted and State is Enabled: flowhook app register erp-client --issuer ${ISSUER} --consent --enabled`,
    ),
  );
  const second = await flowhook(
    engine,
    'app',
    'register',
    'erp-client',
    '--issuer',
    ISSUER,
    '--tenant',
    'tenant-1',
    '--consent',
    '--enabled',
  );
  t.regex(
    second.out,
    /Updated application erp-client\.\n {2}state Enabled, consent yes[^\n]*\n {2}issuer \S+, tenant tenant-1/,
  );
  t.notRegex(second.out, /refused/);
  t.is(engine.apps.get('erp-client')!.tenantId, 'tenant-1');
  await flowhook(engine, 'app', 'register', 'erp-client', '--issuer', ISSUER, '--any-tenant');
  t.is(engine.apps.get('erp-client')!.tenantId, '');
});

test('app register needs --issuer; --tenant and --any-tenant exclude each other', async (t) => {
  const engine = fakeEngine();
  const missing = await flowhook(engine, 'app', 'register', 'erp-client', '--consent');
  t.is(missing.code, 2);
  t.regex(missing.err, /required option '--issuer <url>' not specified/);
  const both = await flowhook(
    engine,
    'app',
    'register',
    'erp-client',
    '--issuer',
    ISSUER,
    '--tenant',
    't',
    '--any-tenant',
  );
  t.is(both.code, 2);
  t.regex(both.err, /cannot be used with/);
  t.is(engine.apps.size, 0, 'nothing was sent');
});

test('app enable, disable and list', async (t) => {
  const engine = fakeEngine();
  await flowhook(
    engine,
    'app',
    'register',
    'c-1',
    '--issuer',
    ISSUER,
    '--consent',
    '--enabled',
    '--permission-set',
    'FLOW INTEGR.',
    '--all-companies',
  );
  t.regex((await flowhook(engine, 'app', 'disable', 'c-1')).out, /Application c-1 is Disabled\./);
  const list = await flowhook(engine, 'app', 'list');
  t.regex(
    list.out,
    /CLIENT ID\s+ISSUER\s+TENANT\s+STATE\s+CONSENT\s+PERMISSION SETS\s+DESCRIPTION\nc-1\s+https:\S+\s+any\s+Disabled\s+yes\s+FLOW INTEGR\. \(all companies\)/,
  );
  t.notRegex(list.out, /before issuers were bound/);
  const json = JSON.parse((await flowhook(engine, 'app', 'enable', 'c-1', '--issuer', ISSUER, '--json')).out);
  t.is(json.app.state, 'APP_STATE_ENABLED');
  t.is(json.app.issuer, ISSUER);
  const missing = await flowhook(engine, 'app', 'enable', 'nope');
  t.not(missing.code, 0);
  t.regex(missing.err, /not registered/);
  t.regex((await flowhook(engine, 'app', 'enable', 'c-1', '--issuer', 'https://other.test')).err, /not registered/);
});

test('app list points out applications registered before issuers were bound', async (t) => {
  const engine = fakeEngine();
  engine.apps.set('legacy', create(AppSchema, { clientId: 'legacy', state: AppState.ENABLED, consentGranted: true }));
  const list = await flowhook(engine, 'app', 'list');
  t.regex(list.out, /\nlegacy\s+\(unset: refused\)\s+any\s+Enabled/);
  t.regex(list.out, /registered before issuers were bound; bind each: flowhook app register <clientId> --issuer <url>/);
});

test('app register sends the scope the operator chose; --company and --all-companies exclude each other', async (t) => {
  const engine = fakeEngine();
  const all = await flowhook(
    engine,
    'app',
    'register',
    'c-all',
    '--issuer',
    ISSUER,
    '--permission-set',
    'FLOW INTEGR.',
    '--all-companies',
  );
  t.is(all.code, 0, all.err);
  t.regex(all.out, /permission sets: FLOW INTEGR\. \(all companies\)/);
  const both = await flowhook(
    engine,
    'app',
    'register',
    'c-both',
    '--issuer',
    ISSUER,
    '--permission-set',
    'FLOW INTEGR.',
    '--company',
    'Acme',
    '--all-companies',
  );
  t.is(both.code, 2);
  t.regex(both.err, /option '--company <name>' cannot be used with option '--all-companies'/);
  t.false(engine.apps.has('c-both'), 'nothing was sent');
});

test('app revoke-consent withdraws consent and says how to restore it', async (t) => {
  const engine = fakeEngine();
  await flowhook(
    engine,
    'app',
    'register',
    'c-3',
    '--issuer',
    ISSUER,
    '--consent',
    '--enabled',
    '--company',
    'Acme',
    '--permission-set',
    'FLOW INTEGR.',
  );
  const revoked = await flowhook(engine, 'app', 'revoke-consent', 'c-3');
  t.is(revoked.code, 0, revoked.err);
  t.regex(
    revoked.out,
    /^Revoked consent of application c-3: its tokens are refused from the next call on\.\n {2}state Enabled, consent no, permission sets: FLOW INTEGR\. \(Acme\)/,
  );
  t.true(revoked.out.includes(`Restore consent with: flowhook app register c-3 --issuer ${ISSUER} --consent`));
  t.false(engine.apps.get('c-3')!.consentGranted);
  const again = await flowhook(engine, 'app', 'revoke-consent', 'c-3', '--json');
  t.is(JSON.parse(again.out).wasGranted, false);
  const unknown = await flowhook(engine, 'app', 'revoke-consent', 'nobody');
  t.is(unknown.code, 1);
  t.regex(unknown.err, /Application "nobody" is not registered/);
});

test('app register refuses SUPER and FLOW ALL, naming FLOW INTEGR.', async (t) => {
  for (const set of ['SUPER', 'FLOW ALL']) {
    const run = await flowhook(
      fakeEngine(),
      'app',
      'register',
      'c-2',
      '--issuer',
      ISSUER,
      '--company',
      'Acme',
      '--permission-set',
      set,
    );
    t.is(run.code, 1);
    t.regex(run.err, /invalid argument: An application cannot use "[A-Z ]+": applications need "FLOW INTEGR\."/);
  }
});

test('user rotate-key prints the new key once; user disable and enable', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(engine, 'user', 'rotate-key', 'svc-erp', '--expires-at', '2030-01-01T00:00:00Z');
  t.is(run.code, 0, run.err);
  t.regex(
    run.out,
    /New access key for "svc-erp" \(expires 2030-01-01T00:00:00\.000Z\); the previous key no longer works\./,
  );
  t.regex(run.out, /shown once[^\n]*\n {4}K{44}/);
  const json = JSON.parse((await flowhook(engine, 'user', 'rotate-key', 'svc-erp', '--json')).out);
  t.is(json.accessKey.length, 44);
  t.regex((await flowhook(engine, 'user', 'disable', 'svc-erp')).out, /Service user "svc-erp" is disabled\./);
  t.false(engine.users.get('svc-erp')!.enabled);
  t.regex((await flowhook(engine, 'user', 'enable', 'svc-erp')).out, /is enabled\./);
});

test('user rotate-key keeps the expiry unless --expires-at or --no-expiry says otherwise; both at once is a usage error', async (t) => {
  const engine = fakeEngine();
  await flowhook(engine, 'user', 'rotate-key', 'svc-erp', '--expires-at', '2031-05-06T07:08:09Z');
  const kept = await flowhook(engine, 'user', 'rotate-key', 'svc-erp');
  t.regex(kept.out, /\(expires 2031-05-06T07:08:09\.000Z, as before\)/);
  t.like(engine.regenerations[1], { accessKeyExpiresAt: undefined, clearExpiry: false });
  const cleared = await flowhook(engine, 'user', 'rotate-key', 'svc-erp', '--no-expiry');
  t.regex(cleared.out, /\(does not expire\)/);
  t.true(engine.regenerations[2]!.clearExpiry);
  const both = await flowhook(
    engine,
    'user',
    'rotate-key',
    'svc-erp',
    '--expires-at',
    '2031-01-01T00:00:00Z',
    '--no-expiry',
  );
  t.is(both.code, 2);
  t.regex(both.err, /cannot be used with/);
  t.is(engine.regenerations.length, 3, 'nothing was sent');
});

test('user list: a table without keys, and a hint when there are none', async (t) => {
  const engine = fakeEngine();
  const user = engine.users.get('svc-erp')!;
  user.accessKeyExpiresAt = timestampFromDate(new Date('2024-01-01T00:00:00Z'));
  user.accessKeyExpired = true;
  user.permissionSets.push(create(UserPermissionSetSchema, { permissionSet: 'SUPER', company: '', usable: true }));
  const list = await flowhook(engine, 'user', 'list');
  t.is(list.code, 0, list.err);
  t.regex(
    list.out,
    /NAME\s+STATE\s+KEY EXPIRES\s+PERMISSION SETS\s+CREATED\nsvc-erp\s+Enabled\s+expired 2024-01-01T00:00:00\.000Z\s+FLOW ALL \(Acme\), SUPER \(all companies\)\s+2025-01-02T03:04:05\.000Z\n$/,
  );
  t.is(JSON.parse((await flowhook(engine, 'user', 'list', '--json')).out).users[0].name, 'svc-erp');
  engine.users.clear();
  t.regex(
    (await flowhook(engine, 'user', 'list')).out,
    /No service users yet\. Create one with: flowhook user create <name> --company <company>/,
  );
});

test('user show says what keeps the user from calling and how to fix it', async (t) => {
  const engine = fakeEngine();
  const healthy = await flowhook(engine, 'user', 'show', 'svc-erp');
  t.regex(
    healthy.out,
    /^Service user "svc-erp"\n {2}State +Enabled\n {2}Key expires +never\n {2}Created +2025-01-02T03:04:05\.000Z\n {2}Permission sets {2}FLOW ALL \(Acme\)\n$/,
  );
  const user = engine.users.get('svc-erp')!;
  user.enabled = false;
  user.accessKeyExpired = true;
  user.accessKeyExpiresAt = timestampFromDate(new Date('2024-01-01T00:00:00Z'));
  user.permissionSets = [
    create(UserPermissionSetSchema, { permissionSet: 'FLOW INTEGR.', company: 'Acme', usable: false }),
  ];
  const stuck = (await flowhook(engine, 'user', 'show', 'svc-erp')).out;
  t.regex(stuck, /Permission sets {2}FLOW INTEGR\. \(Acme\) — never lets a service user call; revoke it/);
  t.regex(stuck, /calls get 401 while it is disabled: flowhook user enable svc-erp/);
  t.regex(
    stuck,
    /key has expired \(calls get 401\): flowhook user rotate-key svc-erp --expires-at <ISO 8601> \(or --no-expiry\)/,
  );
  t.regex(
    stuck,
    /No permission set lets it call \(calls get 403 where it holds a set, 401 elsewhere\): flowhook user grant svc-erp --company <company> --permission-set "FLOW ALL"/,
  );
  const missing = await flowhook(engine, 'user', 'show', 'nobody', '--json');
  t.is(missing.code, 1);
  t.is(JSON.parse(missing.out).error.code, 'not_found');
});

test('user grant and revoke: a repeated grant changes nothing, revoke passes on the warnings', async (t) => {
  const engine = fakeEngine();
  const unscoped = await flowhook(engine, 'user', 'grant', 'svc-erp', '--permission-set', 'SUPER');
  t.is(unscoped.code, 1);
  t.is(engine.users.get('svc-erp')!.permissionSets.length, 1);
  t.is(
    (
      await flowhook(
        engine,
        'user',
        'grant',
        'svc-erp',
        '--permission-set',
        'SUPER',
        '--company',
        'Acme',
        '--all-companies',
      )
    ).code,
    2,
    'the two scopes exclude each other (a usage error)',
  );
  const granted = await flowhook(engine, 'user', 'grant', 'svc-erp', '--permission-set', 'SUPER', '--all-companies');
  t.regex(
    granted.out,
    /^Granted SUPER \(all companies\) to "svc-erp"\.\n {2}permission sets: FLOW ALL \(Acme\), SUPER \(all companies\)\n$/,
  );
  const again = await flowhook(engine, 'user', 'grant', 'svc-erp', '--permission-set', 'SUPER', '--all-companies');
  t.regex(again.out, /"svc-erp" already has SUPER \(all companies\); nothing changed\./);
  t.is(engine.users.get('svc-erp')!.permissionSets.length, 2);
  t.true(
    JSON.parse(
      (await flowhook(engine, 'user', 'grant', 'svc-erp', '--permission-set', 'SUPER', '--all-companies', '--json'))
        .out,
    ).alreadyGranted,
  );
  await flowhook(engine, 'user', 'revoke', 'svc-erp', '--permission-set', 'SUPER');
  const last = await flowhook(engine, 'user', 'revoke', 'svc-erp', '--company', 'Acme', '--permission-set', 'FLOW ALL');
  t.regex(
    last.out,
    /Revoked FLOW ALL \(Acme\) from "svc-erp"[^\n]*\n {2}permission sets: none\n {2}warning: User "svc-erp" has no permission set left/,
  );
  const usage = await flowhook(engine, 'user', 'grant', 'svc-erp');
  t.is(usage.code, 2);
  t.regex(usage.err, /required option '--permission-set <set>'/);
});

test('user delete needs --yes; without it nothing is deleted and the answer says what would go', async (t) => {
  const engine = fakeEngine();
  const refused = await flowhook(engine, 'user', 'delete', 'svc-erp');
  t.is(refused.code, 1);
  t.regex(
    refused.err,
    /^flowhook: not deleted: deleting "svc-erp" removes it and its grants \(FLOW ALL \(Acme\)\); its calls get 401 at once[^\n]*Confirm with: flowhook user delete svc-erp --yes/,
  );
  t.true(engine.users.has('svc-erp'));
  const json = await flowhook(engine, 'user', 'delete', 'svc-erp', '--json');
  t.is(JSON.parse(json.out).error.code, 'failed_precondition');
  const unknown = await flowhook(engine, 'user', 'delete', 'nobody');
  t.regex(unknown.err, /not found: User "nobody" does not exist/);
  const deleted = await flowhook(engine, 'user', 'delete', 'svc-erp', '--yes');
  t.is(deleted.code, 0, deleted.err);
  t.regex(
    deleted.out,
    /Deleted service user "svc-erp" and its grants \(FLOW ALL \(Acme\)\); its calls now get 401 and the name can be used again\./,
  );
  t.false(engine.users.has('svc-erp'));
});
