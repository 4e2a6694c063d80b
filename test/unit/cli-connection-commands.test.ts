// `flowhook connection …`, `flowhook company egress …` and `flowhook
// secret-store rotate` as an operator sees them: the real commander program and Connect
// client against in-memory ConnectionAdminService and SecretStoreAdminService
// that record what they receive. The secret comes from an injected stdin or a
// file, never from argv, and never shows up in any output.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createRouterTransport, type ServiceImpl } from '@connectrpc/connect';
import {
  ConnectionAdminService,
  ConnectionSchema,
  ConnectionType,
  type Connection,
  type DeleteConnectionRequest,
  type SetCompanyEgressRequest,
  type SetConnectionRequest,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import {
  SecretStoreAdminService,
  type RotateKeyResponse,
} from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { adminClientOn } from '../../bin/cli/admin-client.ts';
import { runCapturing } from '../support/cli-runner.ts';
import { readSecret, type SecretStdin } from '../../bin/cli/secret-input.ts';

const KEY_ID = '0123456789abcdef';
const SECRET = 'sk_live_Zq8w-UNIQUE-7731';

type Rotation = Omit<RotateKeyResponse, '$typeName' | '$unknown'>;

/** Just enough of the engine: companies Acme and Beta, connections, egress lists, key rotation. */
function fakeEngine(
  rotation: Rotation = {
    currentKeyId: KEY_ID,
    generated: true,
    rewrapped: 0,
    deliveriesRewrapped: 0,
    retiredKeyIds: [],
  },
) {
  const companies = new Set(['Acme', 'Beta']);
  const connections = new Map<string, Connection>();
  const egress = new Map<string, string[]>();
  const setRequests: SetConnectionRequest[] = [];
  const deleteRequests: DeleteConnectionRequest[] = [];
  const egressRequests: SetCompanyEgressRequest[] = [];
  const calls: string[] = [];
  const requireCompany = (name: string) => {
    if (!companies.has(name)) throw new ConnectError(`company "${name}" does not exist`, Code.NotFound);
  };
  const requireConnection = (company: string, name: string) => {
    requireCompany(company);
    const connection = connections.get(`${company}/${name}`);
    if (!connection)
      throw new ConnectError(`connection "${name}" does not exist in company "${company}"`, Code.NotFound);
    return connection;
  };
  const egressOf = (company: string) => ({ company, narrowed: egress.has(company), allow: egress.get(company) ?? [] });

  const connectionImpl: ServiceImpl<typeof ConnectionAdminService> = {
    setConnection(request) {
      calls.push('setConnection');
      setRequests.push(request);
      requireCompany(request.company);
      const key = `${request.company}/${request.name}`;
      const existing = connections.get(key);
      const connection = create(ConnectionSchema, {
        company: request.company,
        name: request.name,
        settings: request.settings,
        version: (existing?.version ?? 0) + 1,
        keyId: KEY_ID,
        createdAt: existing?.createdAt ?? timestampFromDate(new Date('2025-03-01T10:00:00Z')),
        updatedAt: timestampFromDate(new Date('2025-03-02T11:00:00Z')),
        usedByFlows: existing?.usedByFlows ?? [],
      });
      connections.set(key, connection);
      return { connection, created: !existing };
    },
    listConnections({ company }) {
      calls.push('listConnections');
      requireCompany(company);
      return { connections: [...connections.values()].filter((c) => c.company === company) };
    },
    getConnection({ company, name }) {
      calls.push('getConnection');
      return { connection: requireConnection(company, name) };
    },
    deleteConnection(request) {
      calls.push('deleteConnection');
      deleteRequests.push(request);
      const connection = requireConnection(request.company, request.name);
      if (connection.usedByFlows.length > 0 && !request.force) {
        throw new ConnectError(
          `connection "${request.name}" is used by published flows: ${connection.usedByFlows.join(', ')}`,
          Code.FailedPrecondition,
        );
      }
      connections.delete(`${request.company}/${request.name}`);
      return {};
    },
    setCompanyEgress(request) {
      calls.push('setCompanyEgress');
      egressRequests.push(request);
      requireCompany(request.company);
      if (request.clear) egress.delete(request.company);
      else egress.set(request.company, request.allow);
      return { egress: egressOf(request.company) };
    },
    getCompanyEgress({ company }) {
      calls.push('getCompanyEgress');
      requireCompany(company);
      return { egress: egressOf(company) };
    },
    listConnectionKinds() {
      // The CLI takes its kinds from the registry itself; the console asks this.
      throw new ConnectError('not used by the CLI', Code.Unimplemented);
    },
  };
  const secretStoreImpl: ServiceImpl<typeof SecretStoreAdminService> = {
    rotateKey() {
      calls.push('rotateKey');
      return rotation;
    },
  };
  const transport = createRouterTransport(({ service }) => {
    service(ConnectionAdminService, connectionImpl);
    service(SecretStoreAdminService, secretStoreImpl);
  });
  // The services this fake does not serve answer unimplemented.
  const client = adminClientOn(transport);
  return { client, connections, setRequests, deleteRequests, egressRequests, calls };
}

type Engine = ReturnType<typeof fakeEngine>;

interface Run {
  out: string;
  err: string;
  code: number;
  /** Whether the command looked at stdin at all. */
  stdinRead: boolean;
}

/** Piped (not a terminal) stdin holding `text`. */
function piped(text: string): SecretStdin {
  return { stream: Readable.from([Buffer.from(text, 'utf8')]), isTTY: false };
}

async function flowhook(engine: Engine, stdin: SecretStdin | undefined, ...args: string[]): Promise<Run> {
  let stdinRead = false;
  const secretStdin = () => {
    stdinRead = true;
    if (!stdin) throw new Error('this command should not read stdin');
    return stdin;
  };
  const run = await runCapturing(args, { admin: { client: engine.client, secretStdin } });
  return { ...run, stdinRead };
}

const dir = mkdtempSync(join(tmpdir(), 'flowhook-connection-cli-'));
function secretFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

const leaks = (run: Run, secret = SECRET) => run.out.includes(secret) || run.err.includes(secret);

test('connection set reads the secret from piped stdin and sends it with the settings', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(
    engine,
    piped(`${SECRET}\n`),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'api-key',
    '--base-url',
    'https://erp.example.com/api',
    '--header',
    'X-Erp-Key',
  );
  t.is(run.code, 0, run.err);
  t.true(run.stdinRead);
  t.is(engine.setRequests.length, 1);
  const request = engine.setRequests[0]!;
  t.is(request.company, 'Acme');
  t.is(request.name, 'erp');
  t.is(request.secret, SECRET);
  t.is(request.settings?.type, ConnectionType.API_KEY);
  t.is(request.settings?.baseUrl, 'https://erp.example.com/api');
  t.is(request.settings?.headerName, 'X-Erp-Key');
  t.deepEqual(request.settings?.allowedHosts, []);
  t.regex(run.out, /^Created connection "erp" in company "Acme" \(api-key, version 1\)\.\n/);
  t.regex(run.out, /\n {2}type +api-key\n {2}base URL +https:\/\/erp\.example\.com\/api\n {2}header +X-Erp-Key\n/);
  t.regex(run.out, /secret +stored encrypted under key 0123456789abcdef \(never shown\)/);
  t.false(leaks(run));
  t.is(run.err, '');

  const again = await flowhook(
    engine,
    piped(`${SECRET}-2\r\n`),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'API-KEY',
    '--base-url',
    'https://erp.example.com/api',
    '--json',
  );
  t.is(again.code, 0, again.err);
  t.is(engine.setRequests[1]!.secret, `${SECRET}-2`, 'one \\r\\n stripped');
  const json = JSON.parse(again.out);
  t.false(json.created);
  t.is(json.connection.version, 2);
  t.is(json.connection.keyId, KEY_ID);
  t.is(json.connection.settings.type, 'CONNECTION_TYPE_API_KEY');
  t.false(leaks(again, SECRET));
});

test('connection set maps every option of an oauth2 connection into the request', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(
    engine,
    piped('client-secret'),
    'connection',
    'set',
    'Acme',
    'crm',
    '--type',
    'oauth2-client-credentials',
    '--allowed-host',
    'a.example.com,b.example.com',
    '--allowed-host',
    'c.example.com:8443',
    '--token-url',
    'https://login.example.com/token',
    '--client-id',
    'flowhook',
    '--scope',
    'crm.write',
    '--audience',
    'https://crm.example.com',
  );
  t.is(run.code, 0, run.err);
  const settings = engine.setRequests[0]!.settings!;
  t.is(settings.type, ConnectionType.OAUTH2_CLIENT_CREDENTIALS);
  t.is(settings.baseUrl, '');
  t.deepEqual(settings.allowedHosts, ['a.example.com', 'b.example.com', 'c.example.com:8443']);
  t.is(settings.tokenUrl, 'https://login.example.com/token');
  t.is(settings.clientId, 'flowhook');
  t.is(settings.scope, 'crm.write');
  t.is(settings.audience, 'https://crm.example.com');
  t.is(settings.headerName, '');
  t.is(settings.username, '');
  t.is(engine.setRequests[0]!.secret, 'client-secret', 'no trailing line break: nothing stripped');
  t.regex(run.out, /\(oauth2-client-credentials, version 1\)/);
  t.regex(run.out, /allowed hosts +a\.example\.com, b\.example\.com, c\.example\.com:8443/);
  t.regex(run.out, /client id +flowhook/);
});

test('connection set reads --secret-file, strips exactly one line break and keeps other whitespace', async (t) => {
  const engine = fakeEngine();
  const file = secretFile('password.txt', `  ${SECRET} \n`);
  const run = await flowhook(
    engine,
    undefined,
    'connection',
    'set',
    'Acme',
    'legacy',
    '--type',
    'basic',
    '--username',
    'svc',
    '--base-url',
    'https://legacy.example.com',
    '--secret-file',
    file,
  );
  t.is(run.code, 0, run.err);
  t.false(run.stdinRead, 'a file given: stdin is left alone');
  t.is(engine.setRequests[0]!.secret, `  ${SECRET} `);
  t.is(engine.setRequests[0]!.settings?.username, 'svc');
  t.false(leaks(run));

  const twice = secretFile('twice.txt', 'abc\n\n');
  await flowhook(
    engine,
    undefined,
    'connection',
    'set',
    'Acme',
    'legacy',
    '--type',
    'bearer',
    '--base-url',
    'https://legacy.example.com',
    '--secret-file',
    twice,
  );
  t.is(engine.setRequests[1]!.secret, 'abc\n', 'only one trailing newline is removed');

  const dash = await flowhook(
    engine,
    piped('from-stdin\n'),
    'connection',
    'set',
    'Acme',
    'legacy',
    '--type',
    'bearer',
    '--base-url',
    'https://legacy.example.com',
    '--secret-file',
    '-',
  );
  t.is(dash.code, 0, dash.err);
  t.true(dash.stdinRead);
  t.is(engine.setRequests[2]!.secret, 'from-stdin');
});

test('a secret file that cannot be read is an invalid_argument error that does not echo the path', async (t) => {
  const engine = fakeEngine();
  const missing = join(dir, SECRET);
  const run = await flowhook(
    engine,
    undefined,
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'bearer',
    '--base-url',
    'https://x.example.com',
    '--secret-file',
    missing,
    '--json',
  );
  t.is(run.code, 1);
  t.deepEqual(JSON.parse(run.out), {
    error: { code: 'invalid_argument', message: 'cannot read the file given to --secret-file (ENOENT)' },
  });
  t.false(leaks(run));
  t.deepEqual(engine.calls, []);
});

test('an empty secret is refused before any call to the engine', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(
    engine,
    piped('\n'),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'api-key',
    '--base-url',
    'https://erp.example.com',
  );
  t.is(run.code, 1);
  t.regex(run.err, /^flowhook: the API key is empty: nothing was read from stdin\n$/);
  t.deepEqual(engine.calls, []);

  const json = await flowhook(
    engine,
    undefined,
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'basic',
    '--username',
    'u',
    '--base-url',
    'https://erp.example.com',
    '--secret-file',
    secretFile('empty.txt', ''),
    '--json',
  );
  t.is(json.code, 1);
  t.deepEqual(JSON.parse(json.out).error, {
    code: 'invalid_argument',
    message: 'the password is empty: nothing was read from the file given to --secret-file',
  });
  t.deepEqual(engine.calls, []);
});

test('missing settings of the kind are reported before the secret is asked for', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(engine, piped(SECRET), 'connection', 'set', 'Acme', 'legacy', '--type', 'basic');
  t.is(run.code, 2, 'a usage error');
  t.regex(run.err, /--username is required for basic connections; --base-url or --allowed-host is required/);
  t.false(run.stdinRead);
  t.deepEqual(engine.calls, []);
});

test('an unknown --type is a usage error naming the valid ones', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'digest',
    '--base-url',
    'https://erp.example.com',
  );
  t.is(run.code, 2);
  t.regex(run.err, /'digest' is invalid\. expected one of api-key, basic, bearer, oauth2-client-credentials/);
  t.false(run.stdinRead);
  t.deepEqual(engine.calls, []);
  const none = await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'erp',
    '--base-url',
    'https://erp.example.com',
  );
  t.is(none.code, 2);
  t.regex(none.err, /required option '--type <type>' not specified/);
});

test('there is no --secret option: a secret on the command line is rejected by commander', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'bearer',
    '--base-url',
    'https://erp.example.com',
    '--secret',
    'abc',
  );
  t.is(run.code, 2);
  t.regex(run.err, /unknown option '--secret'/);
  t.false(run.stdinRead);
  t.deepEqual(engine.calls, []);

  const help = await flowhook(engine, undefined, 'connection', 'set', '--help');
  t.is(help.code, 0);
  t.regex(help.out.replace(/\s+/g, ' '), /--secret-file <path> .*never accepted on the command line/);
  t.notRegex(help.out, /--secret\s/);
});

test('typed at a terminal: prompt on stderr, no echo, line editing, raw mode restored', async (t) => {
  const engine = fakeEngine();
  const modes: boolean[] = [];
  const stream = Object.assign(new PassThrough(), {
    isRaw: false,
    setRawMode(raw: boolean) {
      modes.push(raw);
      stream.isRaw = raw;
    },
  });
  // "sk-x", Backspace, "y", an arrow key, Enter, then text after the line that must be ignored.
  stream.write('sk-x');
  stream.write('\u007fy\u001b[A');
  stream.write('\rignored');
  const run = await flowhook(
    engine,
    { stream, isTTY: true },
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'bearer',
    '--base-url',
    'https://erp.example.com',
  );
  t.is(run.code, 0, run.err);
  t.is(engine.setRequests[0]!.secret, 'sk-y');
  t.is(run.err, 'Enter the token for connection "erp" (input hidden), then press Enter: \n');
  t.deepEqual(modes, [true, false]);
  t.false(stream.isRaw);
  t.false(run.out.includes('sk-y'));
});

test('Ctrl-C at the hidden prompt cancels without a call and restores the terminal', async (t) => {
  const modes: boolean[] = [];
  const stream = Object.assign(new PassThrough(), { isRaw: true, setRawMode: (raw: boolean) => void modes.push(raw) });
  stream.write('half\u0003');
  const error = await t.throwsAsync(
    readSecret({ stdin: () => ({ stream, isTTY: true }), io: { out: () => {}, err: () => {} }, prompt: '?' }),
  );
  t.is(error?.message, 'cancelled');
  t.deepEqual(modes, [true, true], 'back to the mode it was in');
});

test('connection list and show never show the secret', async (t) => {
  const engine = fakeEngine();
  const empty = await flowhook(engine, undefined, 'connection', 'list', '--company', 'Acme');
  t.is(
    empty.out,
    'No connections in company "Acme". Create one with: flowhook connection set Acme <name> --type api-key --base-url https://… --secret-file <file>\n',
  );

  await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'api-key',
    '--base-url',
    'https://erp.example.com/api',
  );
  await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'crm',
    '--type',
    'bearer',
    '--allowed-host',
    'crm.example.com,api.crm.example.com',
  );
  engine.connections.get('Acme/erp')!.usedByFlows = ['orders', 'invoices'];

  const list = await flowhook(engine, undefined, 'connection', 'list', '--company', 'Acme');
  t.is(list.code, 0, list.err);
  t.is(
    list.out,
    [
      'NAME  TYPE     TARGET                                VERSION  USED BY',
      'erp   api-key  https://erp.example.com/api           1        orders, invoices',
      'crm   bearer   crm.example.com, api.crm.example.com  1        -',
      '',
    ].join('\n'),
  );
  const listJson = await flowhook(engine, undefined, 'connection', 'list', '--company', 'Acme', '--json');
  t.deepEqual(
    JSON.parse(listJson.out).connections.map((c: { name: string }) => c.name),
    ['erp', 'crm'],
  );
  t.false(leaks(list) || leaks(listJson));

  const show = await flowhook(engine, undefined, 'connection', 'show', 'Acme', 'erp');
  t.is(show.code, 0, show.err);
  t.is(
    show.out,
    [
      'Connection "erp" in company "Acme"',
      '  type      api-key',
      '  base URL  https://erp.example.com/api',
      '  header    X-API-Key (default)',
      '  version   1',
      '  secret    stored encrypted (never shown)',
      `  key id    ${KEY_ID}`,
      '  created   2025-03-01T10:00:00.000Z',
      '  updated   2025-03-02T11:00:00.000Z',
      '  used by   orders, invoices',
      '',
    ].join('\n'),
  );
  const showJson = await flowhook(engine, undefined, 'connection', 'show', 'Acme', 'crm', '--json');
  const connection = JSON.parse(showJson.out).connection;
  t.deepEqual(connection.settings.allowedHosts, ['crm.example.com', 'api.crm.example.com']);
  t.deepEqual(connection.usedByFlows, []);
  t.false(leaks(show) || leaks(showJson));
});

test('a NOT_FOUND from the engine follows the --json error contract', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(engine, undefined, 'connection', 'show', 'Acme', 'ghost', '--json');
  t.is(run.code, 1);
  t.deepEqual(JSON.parse(run.out), {
    error: { code: 'not_found', message: 'connection "ghost" does not exist in company "Acme"' },
  });
  t.is(run.err, 'flowhook: not found: connection "ghost" does not exist in company "Acme"\n');

  const set = await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Nope',
    'erp',
    '--type',
    'bearer',
    '--base-url',
    'https://erp.example.com',
    '--json',
  );
  t.is(set.code, 1);
  t.deepEqual(JSON.parse(set.out), { error: { code: 'not_found', message: 'company "Nope" does not exist' } });
  t.false(leaks(set));
});

test('connection delete passes --yes through; without it the engine refuses while flows use it', async (t) => {
  const engine = fakeEngine();
  await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'erp',
    '--type',
    'bearer',
    '--base-url',
    'https://erp.example.com',
  );
  engine.connections.get('Acme/erp')!.usedByFlows = ['orders'];

  const refused = await flowhook(engine, undefined, 'connection', 'delete', 'Acme', 'erp');
  t.is(refused.code, 1);
  t.regex(refused.err, /failed precondition: connection "erp" is used by published flows: orders/);
  t.false(engine.deleteRequests[0]!.force);

  const forced = await flowhook(engine, undefined, 'connection', 'delete', 'Acme', 'erp', '--yes');
  t.is(forced.code, 0, forced.err);
  t.true(engine.deleteRequests[1]!.force);
  t.is(forced.out, 'Deleted connection "erp" from company "Acme".\n');
  t.false(engine.connections.has('Acme/erp'));

  await flowhook(
    engine,
    piped(SECRET),
    'connection',
    'set',
    'Acme',
    'tmp',
    '--type',
    'bearer',
    '--base-url',
    'https://erp.example.com',
  );
  const json = await flowhook(engine, undefined, 'connection', 'delete', 'Acme', 'tmp', '--json');
  t.is(json.code, 0, json.err);
  t.deepEqual(JSON.parse(json.out), {});
});

test('company egress set (splitting commas), show and delete', async (t) => {
  const engine = fakeEngine();
  const none = await flowhook(engine, undefined, 'company', 'egress', 'show', 'Acme');
  t.is(none.out, 'Company "Acme" has no egress list of its own: FLOWHOOK_EGRESS_ALLOW alone applies.\n');

  const set = await flowhook(
    engine,
    undefined,
    'company',
    'egress',
    'set',
    'Acme',
    'api.example.com,10.0.0.0/8',
    'erp.example.com:8443',
    ' , ',
  );
  t.is(set.code, 0, set.err);
  t.deepEqual(engine.egressRequests[0]!.allow, ['api.example.com', '10.0.0.0/8', 'erp.example.com:8443']);
  t.false(engine.egressRequests[0]!.clear);
  t.is(set.out, 'Company "Acme" may call only: api.example.com, 10.0.0.0/8, erp.example.com:8443\n');

  const show = await flowhook(engine, undefined, 'company', 'egress', 'show', 'Acme', '--json');
  t.deepEqual(JSON.parse(show.out), {
    egress: { company: 'Acme', narrowed: true, allow: ['api.example.com', '10.0.0.0/8', 'erp.example.com:8443'] },
  });

  const deleted = await flowhook(engine, undefined, 'company', 'egress', 'delete', 'Acme');
  t.is(deleted.code, 0, deleted.err);
  t.true(engine.egressRequests[1]!.clear);
  t.deepEqual(engine.egressRequests[1]!.allow, []);
  t.is(deleted.out, 'Company "Acme" has no egress list of its own: FLOWHOOK_EGRESS_ALLOW alone applies.\n');
  t.deepEqual(engine.calls, ['getCompanyEgress', 'setCompanyEgress', 'getCompanyEgress', 'setCompanyEgress']);

  const blank = await flowhook(engine, undefined, 'company', 'egress', 'set', 'Acme', ',', '--json');
  t.is(blank.code, 2, 'a usage error');
  t.is(JSON.parse(blank.out).error.code, 'invalid_argument');
  const empty = await flowhook(engine, undefined, 'company', 'egress', 'set', 'Acme');
  t.is(empty.code, 2);
  t.regex(empty.err, /missing required argument 'entries'/);
  t.is(engine.egressRequests.length, 2, 'nothing was sent');
});

test('the old company egress spellings still show, set and delete, with a note on stderr', async (t) => {
  const engine = fakeEngine();
  const set = await flowhook(engine, undefined, 'company', 'egress', 'Acme', 'api.example.com', '--json');
  t.is(set.code, 0, set.err);
  t.deepEqual(JSON.parse(set.out).egress.allow, ['api.example.com']);
  t.is(
    set.err,
    'flowhook: "company egress <company> <entries…>" is deprecated and will be removed in the next release; use "company egress set <company> <entries…>"\n',
  );
  const show = await flowhook(engine, undefined, 'company', 'egress', 'Acme');
  t.is(show.out, 'Company "Acme" may call only: api.example.com\n');
  t.regex(show.err, /^flowhook: "company egress <company>" is deprecated[^\n]*use "company egress show <company>"\n$/);
  const cleared = await flowhook(engine, undefined, 'company', 'egress', 'Acme', '--clear');
  t.is(cleared.code, 0, cleared.err);
  t.regex(
    cleared.err,
    /^flowhook: "company egress <company> --clear" is deprecated[^\n]*use "company egress delete <company>"\n$/,
  );
  t.deepEqual(engine.calls, ['setCompanyEgress', 'getCompanyEgress', 'setCompanyEgress']);
  t.true(engine.egressRequests[1]!.clear);
});

test('secret-store rotate: a generated key from the key file, with retired keys', async (t) => {
  const engine = fakeEngine({
    currentKeyId: 'k-new',
    generated: true,
    rewrapped: 3,
    deliveriesRewrapped: 1200,
    retiredKeyIds: ['k-old1', 'k-old2'],
  });
  const run = await flowhook(engine, undefined, 'secret-store', 'rotate');
  t.is(run.code, 0, run.err);
  t.is(
    run.out,
    'Generated a new key k-new and re-wrapped 3 secrets and 1200 stored delivery bodies under it.\nThe older keys k-old1, k-old2 protect no secret or delivery body any more and may be removed from the key file.\n',
  );
  const json = await flowhook(engine, undefined, 'secret-store', 'rotate', '--json');
  t.deepEqual(JSON.parse(json.out), {
    currentKeyId: 'k-new',
    generated: true,
    rewrapped: 3,
    deliveriesRewrapped: 1200,
    retiredKeyIds: ['k-old1', 'k-old2'],
  });
});

test('secret-store rotate: the current key from FLOWHOOK_SECRETS_KEY', async (t) => {
  const only = await flowhook(
    fakeEngine({ currentKeyId: 'k-env', generated: false, rewrapped: 1, deliveriesRewrapped: 1, retiredKeyIds: [] }),
    undefined,
    'secret-store',
    'rotate',
  );
  t.is(
    only.out,
    'Re-wrapped 1 secret and 1 stored delivery body under the current key k-env (from FLOWHOOK_SECRETS_KEY).\n',
  );
  const older = await flowhook(
    fakeEngine({
      currentKeyId: 'k-env',
      generated: false,
      rewrapped: 0,
      deliveriesRewrapped: 0,
      retiredKeyIds: ['k-prev'],
    }),
    undefined,
    'secret-store',
    'rotate',
  );
  t.is(
    older.out,
    'Re-wrapped 0 secrets and 0 stored delivery bodies under the current key k-env (from FLOWHOOK_SECRETS_KEY).\nThe older key k-prev protects no secret or delivery body any more and may be removed from FLOWHOOK_SECRETS_KEY.\n',
  );
});
