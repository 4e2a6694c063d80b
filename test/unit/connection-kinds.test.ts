// The connection-kind registry: one module per value of the proto's
// ConnectionType, and the one list the engine's checks, the worker's request
// authentication and the CLI's `connection set` options are derived from.
import test from 'ava';
import fc from 'fast-check';
import { Command } from 'commander';
import {
  ConnectionType,
  ConnectionTypeSchema,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { registerConnectionCommands } from '../../bin/cli/connection-commands.ts';
import { checkConnection } from '../../flow/connection-kinds/connection-check.ts';
import {
  CONNECTION_KINDS,
  connectionKind,
  connectionKindNamed,
} from '../../flow/connection-kinds/connection-kind-registry.ts';
import { KIND_SETTINGS, kindSettingsOf } from '../../flow/connection-kinds/connection-settings.ts';
import { basicCredentials } from '../../flow/connection-kinds/http-basic.ts';
import type { AuthenticationServices } from '../../flow/connection-kinds/connection-kind.ts';

/** What simple kinds get: they must not reach for a token endpoint or the token cache. */
const NO_IO: AuthenticationServices = {
  cachedToken: () => Promise.reject(new Error('this kind fetched a token')),
  send: () => Promise.reject(new Error('this kind sent a request')),
};

function connectionSet(): Command {
  const program = new Command('flowhook');
  registerConnectionCommands(program, {
    client: () => {
      throw new Error('no engine in this test');
    },
    io: { out: () => undefined, err: () => undefined },
    setExitCode: () => undefined,
  });
  return program.commands
    .find((command) => command.name() === 'connection')!
    .commands.find((command) => command.name() === 'set')!;
}

test('the registry has one kind per value of the proto ConnectionType, found by its type and by its name', (t) => {
  const types = ConnectionTypeSchema.values
    .map((value) => value.number as ConnectionType)
    .filter((type) => type !== ConnectionType.UNSPECIFIED);
  t.deepEqual(
    CONNECTION_KINDS.map((kind) => kind.type),
    types,
  );
  for (const kind of CONNECTION_KINDS) {
    t.is(connectionKind(kind.type), kind);
    t.is(connectionKindNamed(kind.name), kind);
    t.is(connectionKindNamed(kind.name.toUpperCase()), kind, 'names are matched in any letter case');
    t.regex(kind.name, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  }
  t.is(connectionKind(ConnectionType.UNSPECIFIED), undefined);
  t.is(new Set(CONNECTION_KINDS.map((kind) => kind.name)).size, CONNECTION_KINDS.length);
});

test('kinds use only settings of the settings table, and every setting of the table is used by a kind', (t) => {
  const known = new Set(KIND_SETTINGS.map((setting) => setting.name));
  const used = new Set(CONNECTION_KINDS.flatMap((kind) => kind.settings.map((use) => use.name)));
  for (const name of used) t.true(known.has(name), name);
  t.deepEqual(
    [...known].filter((name) => !used.has(name)),
    [],
  );
});

test('connection set offers every kind as --type and every setting as an option whose help names the kinds that use it', (t) => {
  const set = connectionSet();
  const option = (long: string) => set.options.find((candidate) => candidate.long === long);
  t.true(option('--type')!.description.endsWith(CONNECTION_KINDS.map((kind) => kind.name).join(', ')));
  for (const setting of KIND_SETTINGS) {
    const given = option(setting.flags.split(' ')[0]!);
    t.truthy(given, setting.flags);
    for (const kind of CONNECTION_KINDS) {
      const use = kind.settings.find((candidate) => candidate.name === setting.name);
      if (use) t.true(given!.description.includes(`${kind.name}: ${use.help}`), `${setting.flags} for ${kind.name}`);
    }
  }
});

/** A valid value of each required setting, and a valid secret and base URL for the kind. */
const SAMPLE_VALUES: Partial<Record<(typeof KIND_SETTINGS)[number]['name'], string>> = {
  tokenUrl: 'https://login.example.com/token',
  mailFrom: 'flowhook@example.com',
  mailTo: 'ops@example.com, oncall@example.com',
};
function validFor(kind: (typeof CONNECTION_KINDS)[number]) {
  const alerts = kind.purpose === 'alerts';
  return {
    baseUrl: !alerts || kind.usesBaseUrl ? 'https://erp.example.com/api' : '',
    secret:
      kind.name === 'slack' || kind.name === 'teams'
        ? 'https://hooks.example.com/services/T0/B0/abc'
        : kind.name === 'webhook'
          ? `whsec_${Buffer.alloc(32, 7).toString('base64')}`
          : 'secret',
  };
}

test('a setting the kind does not use is refused, naming it and the kind', (t) => {
  for (const kind of CONNECTION_KINDS) {
    const { baseUrl, secret } = validFor(kind);
    const settings = { baseUrl, allowedHosts: [], ...kindSettingsOf({}) };
    const required = Object.fromEntries(
      kind.settings.filter((use) => use.required).map((use) => [use.name, SAMPLE_VALUES[use.name] ?? 'x']),
    );
    t.deepEqual(checkConnection(kind.type, { ...settings, ...required }, secret), [], kind.name);
    for (const { name } of KIND_SETTINGS.filter((setting) => !kind.settings.some((use) => use.name === setting.name))) {
      t.deepEqual(checkConnection(kind.type, { ...settings, ...required, [name]: 'x' }, secret), [
        `${name}: not used by ${kind.name} connections`,
      ]);
    }
  }
});

test('alert channels take no allowed hosts, a base URL only where they post to it, and check their secret without quoting it', (t) => {
  const settings = { baseUrl: '', allowedHosts: [], ...kindSettingsOf({}) };
  const secretUrl = 'https://hooks.example.com/services/T0/B0/abc';
  t.deepEqual(checkConnection(ConnectionType.SLACK, { ...settings, allowedHosts: ['hooks.example.com'] }, secretUrl), [
    'allowedHosts: not used by slack connections',
  ]);
  t.deepEqual(checkConnection(ConnectionType.TEAMS, settings, 'not a url'), [
    'secret: the workflow webhook URL is not an absolute URL',
  ]);
  t.deepEqual(checkConnection(ConnectionType.WEBHOOK, settings, 'whsec_short'), [
    'baseUrl: required for webhook connections',
    'secret: a Standard Webhooks signing secret, whsec_ and base64 of 24 to 64 bytes (e.g. whsec_$(openssl rand -base64 32))',
  ]);
  const smtp = {
    ...settings,
    smtpHost: 'mail.example.com',
    mailFrom: 'me',
    mailTo: 'ops@example.com',
    username: 'u',
    smtpSecurity: 'ssl',
    smtpPort: '0',
  };
  t.deepEqual(checkConnection(ConnectionType.SMTP, smtp, 'pw'), [
    'smtpPort: a port from 1 to 65535',
    'smtpSecurity: one of starttls, tls, none',
    'mailFrom: one e-mail address',
  ]);
});

test('an httpRequest step cannot authenticate with an alert channel: it fails at once, naming the connection', async (t) => {
  for (const kind of CONNECTION_KINDS.filter((candidate) => candidate.purpose === 'alerts')) {
    const error = await t.throwsAsync(
      kind.authenticate({ name: 'ops', settings: kindSettingsOf({}), secret: 'https://hooks.example.com/x' }, NO_IO),
    );
    t.regex(error!.message, /connection "ops" is a .* alert channel: httpRequest steps cannot use it/);
    t.false(error!.message.includes('hooks.example.com'));
  }
});

test('api-key, basic and bearer add their one header and need no I/O', async (t) => {
  const connection = (settings: Partial<Record<(typeof KIND_SETTINGS)[number]['name'], string>>) => ({
    name: 'erp',
    settings: kindSettingsOf(settings),
    secret: 'pässwörd',
  });
  const authenticate = (type: ConnectionType, settings = {}) =>
    connectionKind(type)!.authenticate(connection(settings), NO_IO);
  t.deepEqual(await authenticate(ConnectionType.API_KEY), { 'x-api-key': 'pässwörd' });
  t.deepEqual(await authenticate(ConnectionType.API_KEY, { headerName: 'X-Erp-Key' }), { 'x-erp-key': 'pässwörd' });
  t.deepEqual(await authenticate(ConnectionType.BASIC, { username: 'zoë' }), {
    authorization: `Basic ${Buffer.from('zoë:pässwörd', 'utf8').toString('base64')}`,
  });
  t.deepEqual(await authenticate(ConnectionType.BEARER), { authorization: 'Bearer pässwörd' });
});

test('Basic credentials are the base64 of the UTF-8 bytes, for any text (lone surrogates as U+FFFD, like Buffer)', (t) => {
  // Any UTF-16 code unit (lone surrogates included) or astral code point.
  const unit = fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
  );
  const text = fc.string({ unit });
  fc.assert(
    fc.property(text, text, (user, password) => {
      t.is(basicCredentials(user, password), Buffer.from(`${user}:${password}`, 'utf8').toString('base64'));
    }),
  );
});
