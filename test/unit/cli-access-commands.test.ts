// `flowhook app …` and `flowhook user regenerate-key|enable|disable` as an
// operator sees them: the real commander program and Connect client against
// in-memory AppAdminService and UserAdminService.
import test from 'ava';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport, type ServiceImpl } from '@connectrpc/connect';
import { Command, CommanderError } from 'commander';
import { AppAdminService, AppSchema, AppState, type App } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { ConnectionAdminService } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { SecretStoreAdminService } from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { registerAdminCommands } from '../../bin/cli/admin-commands.ts';

function fakeEngine() {
  const apps = new Map<string, App>();
  const users = new Map<string, boolean>([['svc-erp', true]]);
  const appImpl: ServiceImpl<typeof AppAdminService> = {
    registerApp(request) {
      if (request.permissionSet === 'SUPER') throw new ConnectError('permission set for an application: one of FLOW ALL, FLOW INTEGR.', Code.InvalidArgument);
      const created = !apps.has(request.clientId);
      const app = apps.get(request.clientId) ?? create(AppSchema, { clientId: request.clientId, state: AppState.DISABLED });
      if (request.description) app.description = request.description;
      if (request.consentGranted) app.consentGranted = true;
      if (request.state !== AppState.UNSPECIFIED) app.state = request.state;
      if (request.permissionSet) app.permissionSets.push({ $typeName: 'flowhook.engine.v1.AppPermissionSet', permissionSet: request.permissionSet, company: request.company });
      apps.set(app.clientId, app);
      return { app, created };
    },
    setAppState(request) {
      const app = apps.get(request.clientId);
      if (!app) throw new ConnectError(`Application "${request.clientId}" is not registered`, Code.NotFound);
      app.state = request.state;
      return { app };
    },
    listApps() {
      return { apps: [...apps.values()] };
    },
  };
  const userImpl: ServiceImpl<typeof UserAdminService> = {
    regenerateUserKey(request) {
      if (!users.has(request.name)) throw new ConnectError(`User "${request.name}" does not exist`, Code.NotFound);
      return { name: request.name, accessKey: 'K'.repeat(44), accessKeyExpiresAt: request.accessKeyExpiresAt };
    },
    setUserState(request) {
      users.set(request.name, request.enabled);
      return { name: request.name, enabled: request.enabled };
    },
  };
  const transport = createRouterTransport(({ service }) => {
    service(AppAdminService, appImpl);
    service(UserAdminService, userImpl);
  });
  const client = {
    ...createClient(FlowAdminService, transport),
    ...createClient(AppAdminService, transport),
    ...createClient(UserAdminService, transport),
    ...createClient(ConnectionAdminService, transport),
    ...createClient(SecretStoreAdminService, transport),
  };
  return { client, apps, users };
}

async function flowhook(engine: ReturnType<typeof fakeEngine>, ...args: string[]) {
  const run = { out: '', err: '', code: 0 };
  const program = new Command('flowhook').exitOverride().configureOutput({ writeOut: (text) => void (run.out += text), writeErr: (text) => void (run.err += text) });
  registerAdminCommands(program, { client: engine.client, io: { out: (text) => void (run.out += text), err: (text) => void (run.err += text) }, setExitCode: (code) => void (run.code = code) });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    run.code = error.exitCode;
  }
  return run;
}

test('app register adds the application and says what is missing before its tokens are accepted', async (t) => {
  const engine = fakeEngine();
  const first = await flowhook(engine, 'app', 'register', 'erp-client', '--company', 'Acme', '--permission-set', 'FLOW INTEGR.', '--description', 'ERP');
  t.is(first.code, 0, first.err);
  t.regex(first.out, /Registered application erp-client\./);
  t.regex(first.out, /state Disabled, consent no, permission sets: FLOW INTEGR\. \(Acme\)/);
  t.regex(first.out, /refused until consent is granted and State is Enabled: flowhook app register erp-client --consent --enabled/);
  const second = await flowhook(engine, 'app', 'register', 'erp-client', '--consent', '--enabled');
  t.regex(second.out, /Updated application erp-client\.\n  state Enabled, consent yes/);
  t.notRegex(second.out, /refused/);
});

test('app enable, disable and list', async (t) => {
  const engine = fakeEngine();
  await flowhook(engine, 'app', 'register', 'c-1', '--consent', '--enabled', '--permission-set', 'FLOW INTEGR.');
  t.regex((await flowhook(engine, 'app', 'disable', 'c-1')).out, /Application c-1 is Disabled\./);
  const list = await flowhook(engine, 'app', 'list');
  t.regex(list.out, /CLIENT ID\s+STATE\s+CONSENT\s+PERMISSION SETS\s+DESCRIPTION\nc-1\s+Disabled\s+yes\s+FLOW INTEGR\. \(all companies\)/);
  const json = JSON.parse((await flowhook(engine, 'app', 'enable', 'c-1', '--json')).out);
  t.is(json.app.state, 'APP_STATE_ENABLED');
  const missing = await flowhook(engine, 'app', 'enable', 'nope');
  t.not(missing.code, 0);
  t.regex(missing.err, /not registered/);
});

test('app register refuses SUPER', async (t) => {
  const run = await flowhook(fakeEngine(), 'app', 'register', 'c-2', '--permission-set', 'SUPER');
  t.not(run.code, 0);
  t.regex(run.err, /FLOW ALL, FLOW INTEGR\./);
});

test('user regenerate-key prints the new key once; user disable and enable', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(engine, 'user', 'regenerate-key', 'svc-erp', '--expires-at', '2030-01-01T00:00:00Z');
  t.is(run.code, 0, run.err);
  t.regex(run.out, /New access key for "svc-erp" \(expires 2030-01-01T00:00:00\.000Z\); the previous key no longer works\./);
  t.regex(run.out, /shown once[^\n]*\n {4}K{44}/);
  const json = JSON.parse((await flowhook(engine, 'user', 'regenerate-key', 'svc-erp', '--json')).out);
  t.is(json.accessKey.length, 44);
  t.regex((await flowhook(engine, 'user', 'disable', 'svc-erp')).out, /Service user "svc-erp" is disabled\./);
  t.false(engine.users.get('svc-erp'));
  t.regex((await flowhook(engine, 'user', 'enable', 'svc-erp')).out, /is enabled\./);
});
