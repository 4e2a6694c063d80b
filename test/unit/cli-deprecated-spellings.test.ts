// The CLI's old spellings (bin/cli/deprecated-spellings.ts) and its exit codes,
// as an operator sees them: the whole program (runCli) against an in-memory
// engine. An old spelling does what the new one does, says so once on stderr
// (stdout stays one JSON document with --json), and appears in no --help.
// Exit codes: 0 done, 1 failed (the engine refused), 2 usage error.
import test from 'ava';
import { Code, ConnectError, createRouterTransport } from '@connectrpc/connect';
import {
  ConnectionAdminService,
  type DeleteConnectionRequest,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { SecretStoreAdminService } from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { respellDeprecated } from '../../bin/cli/deprecated-spellings.ts';
import { adminClientOn } from '../../bin/cli/admin-client.ts';
import { runCapturing } from '../support/cli-runner.ts';

function fakeEngine() {
  const calls: string[] = [];
  const deletes: DeleteConnectionRequest[] = [];
  const transport = createRouterTransport((router) => {
    router.service(FlowAdminService, {
      getFlow({ company, name }) {
        calls.push(`getFlow ${company}/${name}`);
        if (name !== 'orders')
          throw new ConnectError(`flow "${name}" does not exist in company "${company}"`, Code.NotFound);
        return { flow: { company, name, activity: 'acme.orders', latestVersion: 1 } };
      },
    });
    router.service(UserAdminService, {
      regenerateUserKey({ name }) {
        calls.push(`regenerateUserKey ${name}`);
        return { name, accessKey: 'K'.repeat(44) };
      },
    });
    router.service(SecretStoreAdminService, {
      rotateKey() {
        calls.push('rotateKey');
        return { currentKeyId: 'k-new', generated: true, rewrapped: 2, retiredKeyIds: [] };
      },
    });
    router.service(ConnectionAdminService, {
      listConnections({ company }) {
        calls.push(`listConnections ${company}`);
        return { connections: [] };
      },
      deleteConnection(request) {
        calls.push('deleteConnection');
        deletes.push(request);
        return {};
      },
    });
  });
  // The services this fake does not serve answer unimplemented.
  const client = adminClientOn(transport);
  return { client, calls, deletes };
}

function flowhook(engine: ReturnType<typeof fakeEngine>, ...args: string[]) {
  return runCapturing(args, { admin: { client: engine.client } });
}

const note = (old: string, now: string) =>
  `flowhook: "${old}" is deprecated and will be removed in the next release; use "${now}"\n`;

// Each old spelling, its new one, and the call both make.
const RENAMES: [old: string[], now: string[], call: string, deprecated: string, current: string][] = [
  [
    ['flow', 'get', 'Acme', 'orders'],
    ['flow', 'show', 'Acme', 'orders'],
    'getFlow Acme/orders',
    'flow get',
    'flow show',
  ],
  [
    ['user', 'regenerate-key', 'svc'],
    ['user', 'rotate-key', 'svc'],
    'regenerateUserKey svc',
    'user regenerate-key',
    'user rotate-key',
  ],
  [['secrets', 'rotate-key'], ['secret-store', 'rotate'], 'rotateKey', 'secrets rotate-key', 'secret-store rotate'],
  [
    ['connection', 'list', 'Acme'],
    ['connection', 'list', '--company', 'Acme'],
    'listConnections Acme',
    'connection list <company>',
    'connection list --company <company>',
  ],
];

for (const [old, now, call, deprecated, current] of RENAMES) {
  test(`"${old.join(' ')}" still works like "${now.join(' ')}", with one note on stderr`, async (t) => {
    const engine = fakeEngine();
    const before = await flowhook(engine, ...old, '--json');
    const after = await flowhook(engine, ...now, '--json');
    t.is(before.code, 0, before.err);
    t.deepEqual(engine.calls, [call, call]);
    t.is(before.err, note(deprecated, current), 'exactly one line, on stderr');
    t.is(after.err, '', 'the new spelling says nothing extra');
    t.deepEqual(JSON.parse(before.out), JSON.parse(after.out), 'stdout holds the same one JSON document');
  });
}

test('connection delete --force still confirms like --yes, with one note on stderr', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(engine, 'connection', 'delete', 'Acme', 'erp', '--force', '--json');
  t.is(run.code, 0, run.err);
  t.true(engine.deletes[0]!.force);
  t.deepEqual(JSON.parse(run.out), {});
  t.is(run.err, note('connection delete --force', 'connection delete --yes'));
  const plain = await flowhook(engine, 'connection', 'delete', 'Acme', 'erp');
  t.false(engine.deletes[1]!.force);
  t.is(plain.err, '');
});

test('no old spelling is in any --help', async (t) => {
  const engine = fakeEngine();
  const help = async (...path: string[]) => {
    const run = await flowhook(engine, ...path, '--help');
    t.is(run.code, 0, run.err);
    t.is(run.err, '', `${path.join(' ')} --help prints no deprecation note`);
    return run.out;
  };
  const top = await help();
  // Commands are listed two spaces in; deeper lines are wrapped descriptions.
  t.notRegex(top, /^ {2}secrets\b/m);
  t.regex(top, /^ {2}secret-store\s/m);
  t.notRegex(await help('flow'), /^ {2}get\b/m);
  t.notRegex(await help('user'), /regenerate-key/);
  t.notRegex(await help('secret-store'), /rotate-key/);
  t.notRegex(await help('connection', 'delete'), /--force/);
  t.regex(await help('connection', 'list'), /Usage: flowhook connection list \[options\]\n/);
  t.notRegex(await help('company', 'egress'), /--clear|\[entries/);
});

test('a usage error exits 2 and sends nothing; an engine refusal exits 1; success exits 0', async (t) => {
  const engine = fakeEngine();
  const usages: [args: string[], message: RegExp][] = [
    [['flow', 'shwo', 'Acme', 'orders'], /unknown command 'shwo'/],
    [['flwo'], /unknown command 'flwo'/],
    [['flow', 'show', 'Acme', 'orders', '--jsno'], /unknown option '--jsno'/],
    [['flow', 'show', 'Acme'], /missing required argument 'name'/],
    [['flow', 'show', 'Acme', 'orders', 'extra'], /too many arguments/],
    [['flow', 'publish', 'Acme', 'orders', '--version', 'latest'], /argument 'latest' is invalid/],
    [['connection', 'list'], /required option '--company <name>' not specified/],
    [['flow'], /Usage: flowhook flow/],
  ];
  for (const [args, message] of usages) {
    const run = await flowhook(engine, ...args);
    t.is(run.code, 2, args.join(' '));
    t.regex(run.err, message);
    t.is(run.out, '');
  }
  t.deepEqual(engine.calls, [], 'nothing was sent');

  const refused = await flowhook(engine, 'flow', 'show', 'Acme', 'ghost', '--json');
  t.is(refused.code, 1);
  t.deepEqual(JSON.parse(refused.out), {
    error: { code: 'not_found', message: 'flow "ghost" does not exist in company "Acme"' },
  });
  t.is((await flowhook(engine, 'flow', 'show', 'Acme', 'orders')).code, 0);
  t.is((await flowhook(engine, '--help')).code, 0);
  t.is((await flowhook(engine, '--version')).code, 0);
});

test('respelling: only the old spelling is rewritten', (t) => {
  const unchanged = [
    ['flow', 'show', 'Acme', 'get'],
    ['connection', 'list', '--company', 'Acme'],
    ['connection', 'list', '--help'],
    ['connection', 'show', 'Acme', 'erp', '--force'],
    ['connection', 'delete', 'Acme', '--', '--force'],
    ['company', 'egress', 'show', 'Acme'],
    ['company', 'egress', 'set', 'Acme', 'a.example.com'],
    ['company', 'egress', 'delete', 'Acme'],
    ['company', 'egress', '--help'],
    ['company', 'egress'],
    ['user', 'show', 'regenerate-key'],
  ];
  for (const args of unchanged) t.is(respellDeprecated(args), undefined, args.join(' '));
  t.deepEqual(respellDeprecated(['connection', 'delete', 'Acme', 'erp', '--json', '--force'])?.args, [
    'connection',
    'delete',
    'Acme',
    'erp',
    '--json',
    '--yes',
  ]);
  t.deepEqual(respellDeprecated(['connection', 'list', '--json', 'Acme'])?.args, [
    'connection',
    'list',
    '--company',
    'Acme',
    '--json',
  ]);
  t.deepEqual(respellDeprecated(['company', 'egress', 'Acme', 'a.example.com,b.example.com', '--json'])?.args, [
    'company',
    'egress',
    'set',
    'Acme',
    'a.example.com,b.example.com',
    '--json',
  ]);
  t.deepEqual(respellDeprecated(['company', 'egress', 'Acme', '--clear'])?.args, [
    'company',
    'egress',
    'delete',
    'Acme',
  ]);
  t.deepEqual(respellDeprecated(['company', 'egress', 'Acme'])?.args, ['company', 'egress', 'show', 'Acme']);
});
