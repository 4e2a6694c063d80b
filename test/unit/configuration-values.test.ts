// The value types of the configuration table: one parser each, so every variable of a type
// accepts and refuses the same spellings, and a refusal names the variable (quoting what it got,
// unless the variable is a secret).
import test from 'ava';
import { parseSetting, readSettings } from '../../common/configuration/read-settings.ts';
import { boolean } from '../../common/configuration/values/boolean-value.ts';
import { choice } from '../../common/configuration/values/choice-value.ts';
import { decimal } from '../../common/configuration/values/decimal-value.ts';
import { duration } from '../../common/configuration/values/duration-value.ts';
import { integer } from '../../common/configuration/values/integer-value.ts';
import { keyValues } from '../../common/configuration/values/key-values-value.ts';
import { list } from '../../common/configuration/values/list-value.ts';
import { port } from '../../common/configuration/values/port-value.ts';
import { token } from '../../common/configuration/values/token-value.ts';
import { origin, url } from '../../common/configuration/values/url-value.ts';
import { ValueError, type ValueType } from '../../common/configuration/values/value-type.ts';

function refuses<T>(t: import('ava').ExecutionContext, type: ValueType<T>, texts: string[]): void {
  for (const text of texts) t.throws(() => type.parse(text), { instanceOf: ValueError }, text);
}

test('integers are decimal digits within bounds: no exponent, sign, point, or hexadecimal', (t) => {
  const bytes = integer({ min: 1 });
  t.is(bytes.parse('1000000'), 1_000_000);
  refuses(t, bytes, ['1e6', '0x10', '1.0', '+5', '-1', '0', '1_000', 'ten', '9007199254740993']);
  const tolerance = integer({ min: 0, max: 300 });
  t.is(tolerance.parse('0'), 0);
  t.is(tolerance.parse('300'), 300);
  refuses(t, tolerance, ['301']);
  const age = integer({ min: 60, zero: 'no limit' });
  t.is(age.parse('0'), 0);
  t.is(age.parse('60'), 60);
  t.throws(() => age.parse('30'), { message: 'must be 0 (no limit) or an integer >= 60' });
});

test('ports: 1..65535, 0 only where a free port makes sense, off only where a listener can be off', (t) => {
  t.is(port().parse('7233'), 7233);
  t.throws(() => port().parse('0'), { message: 'must be a port number (1..65535)' });
  t.is(port({ freePort: true }).parse('0'), 0);
  refuses(t, port({ freePort: true }), ['65536', '1e3', '80a', '-1', 'off']);
  t.is(port({ freePort: true, off: true }).parse('OFF'), 'off');
  t.throws(() => port({ freePort: true, off: true }).parse('yes'), {
    message: 'must be a port number (0..65535) or off',
  });
});

test('durations are spelled as in flow files, within bounds; off only where a row allows it', (t) => {
  const ttl = duration({ min: 60_000, max: 86_400_000 });
  t.is(ttl.parse('1h30m'), 5_400_000);
  refuses(t, ttl, ['30s', '2d', '3600', 'an hour']);
  t.is(ttl.format(3_600_000), '1h');
  const retention = duration({ min: 86_400_000, off: true });
  t.is(retention.parse('off'), 'off');
  t.is(retention.parse('90d'), 90 * 86_400_000);
  t.throws(() => retention.parse('30m'), { message: /^must be off or a duration of at least 1d/ });
});

test('URLs: http(s); a base URL has no query or fragment and loses trailing slashes; a secure one is https but on loopback', (t) => {
  t.is(url().parse('https://otlp.example/v1/traces?tenant=a'), 'https://otlp.example/v1/traces?tenant=a');
  t.is(url({ base: true }).parse('https://hooks.example.com/erp//'), 'https://hooks.example.com/erp');
  for (const text of ['http://engine:7049/?x=1', 'http://engine:7049#top', 'http://engine:7049/?']) {
    t.throws(
      () => url({ base: true }).parse(text),
      { message: 'must be an http(s) URL without a query or fragment' },
      text,
    );
  }
  refuses(t, url(), ['engine:7049', 'ftp://x', 'not a url', 'grpc://collector:4317']);
  t.is(url({ secure: true }).parse('https://login.example.com/tenant/'), 'https://login.example.com/tenant/');
  for (const loopback of ['http://127.0.0.1:9000', 'http://127.1.2.3', 'http://localhost:9000', 'http://[::1]:9000'])
    t.notThrows(() => url({ secure: true }).parse(loopback), loopback);
  t.throws(() => url({ secure: true }).parse('http://idp.example.com'), {
    message: 'must be an https URL (http only on a loopback host)',
  });
});

test('origins are exactly scheme://host[:port]', (t) => {
  t.is(origin().parse('https://temporal.example.com/'), 'https://temporal.example.com');
  refuses(t, origin(), ['*', 'https://*.example.com', 'http://127.0.0.1:8233/ui', 'ftp://x', '127.0.0.1:8233']);
});

test('switches, words, ratios', (t) => {
  t.deepEqual(
    ['true', 'TRUE', '1', 'false', 'False', '0'].map((text) => boolean().parse(text)),
    [true, true, true, false, false, false],
  );
  t.throws(() => boolean().parse('yes'), { message: 'must be true or false' });
  const level = choice(['debug', 'info', 'warn', 'error']);
  t.is(level.parse('WARN'), 'warn');
  t.throws(() => level.parse('verbose'), { message: 'must be one of debug, info, warn, error' });
  t.throws(() => choice(['on', 'off']).parse('no'), { message: 'must be on or off' });
  t.is(decimal({ min: 0, max: 1 }).parse('0.25'), 0.25);
  refuses(t, decimal({ min: 0, max: 1 }), ['2', '-0.5', '1e-1', 'half']);
});

test('tokens: at least 16 characters, no white space', (t) => {
  t.is(token().parse('a-token-of-sixteen'), 'a-token-of-sixteen');
  refuses(t, token(), ['short', 'a token with spaces in it']);
});

test('lists name the wrong item; key=value lists never quote it', (t) => {
  t.deepEqual(list(origin()).parse(' http://127.0.0.1:8233 , ,https://ui.example/ '), [
    'http://127.0.0.1:8233',
    'https://ui.example',
  ]);
  const error = t.throws(() => list(origin()).parse('http://a:1,*'), { instanceOf: ValueError });
  t.regex(error!.message, /^item 2 must be exactly scheme:\/\/host/);
  t.is(error!.quote, '*');
  t.deepEqual(keyValues().parse('x-api-key=traces%20key, x-team=ops'), { 'x-api-key': 'traces key', 'x-team': 'ops' });
  t.throws(() => keyValues().parse('a=b,garbage'), { message: 'must be a comma list of key=value, item 2 is not' });
});

test('a refusal names the variable, why its bounds are what they are, and what it got — unless it is a secret', (t) => {
  t.throws(() => parseSetting('FLOWHOOK_HOOK_REPLAY_WINDOW', '1d'), {
    message:
      'FLOWHOOK_HOOK_REPLAY_WINDOW must be a duration of at least 3d such as 30d, 12h or 90m (a provider\'s redelivery must join the first execution, not start another), got "1d"',
  });
  t.throws(() => parseSetting('FLOWHOOK_CODEC_ALLOWED_ORIGINS', 'http://a:1,*'), {
    message: /^FLOWHOOK_CODEC_ALLOWED_ORIGINS item 2 must be exactly .*, got "\*"$/,
  });
  const secret = t.throws(() => parseSetting('FLOWHOOK_ADMIN_TOKEN', 'hunter2 hunter2'));
  t.is(
    secret!.message,
    'FLOWHOOK_ADMIN_TOKEN must have at least 32 characters and no white space (it opens every admin service and the console: make one with `openssl rand -base64 32`)',
  );
  const headers = t.throws(() =>
    parseSetting('OTEL_EXPORTER_OTLP_HEADERS', 'authorization=Bearer s3cr3t,garbage-s3cr3t'),
  );
  t.false(headers!.message.includes('s3cr3t'));
});

test('unset, empty and blank read as the default; values are trimmed; a retired variable stops the process', (t) => {
  for (const env of [{}, { FLOWHOOK_ENGINE_PORT: '' }, { FLOWHOOK_ENGINE_PORT: '  ' }])
    t.is(readSettings(env, 'engine').FLOWHOOK_ENGINE_PORT, 7049);
  t.is(readSettings({ FLOWHOOK_ENGINE_PORT: ' 7100 ' }, 'engine').FLOWHOOK_ENGINE_PORT, 7100);
  t.is(readSettings({}, 'engine').FLOWHOOK_PUBLIC_URL, undefined);
  // `start` works out its own default for these.
  t.is(readSettings({}, 'start').FLOWHOOK_FACADE_HOST, undefined);
  t.is(readSettings({}, 'facade').FLOWHOOK_FACADE_HOST, '0.0.0.0');
  t.throws(() => readSettings({ FLOWHOOK_SERVICE_TOKEN: 'x' }, 'facade'), {
    message: /^FLOWHOOK_SERVICE_TOKEN is no longer read: .*FLOWHOOK_ENGINE_TOKEN.*; unset it$/,
  });
  // Only what is read is judged: a wrong value of a variable this reader never reads is not its concern.
  t.notThrows(
    () =>
      readSettings({ FLOWHOOK_EGRESS_ALLOW: '!!', FLOWHOOK_CODEC_SESSION_TTL: 'soon' }, 'engine').FLOWHOOK_ENGINE_PORT,
  );
  t.true(Object.isFrozen(readSettings({}, 'worker')));
});
