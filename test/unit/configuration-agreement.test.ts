// The processes read a shared variable alike: the same value is accepted by all of them or
// refused by all of them, with the same message. Before the configuration table each had its own
// reader, and they disagreed (the engine took FLOWHOOK_MAX_BODY_BYTES=1e6, the facade refused it;
// the facade refused a URL with a query, engine and worker took it; …).
import test from 'ava';
import { readCliConfig } from '../../bin/cli/cli-config.ts';
import { readStartConfig } from '../../bin/start/start-config.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { readWorkerConfig } from '../../workflows/config.ts';

type Env = Record<string, string>;
const TOKEN = 'a-token-of-sixteen-plus';
const READERS: Record<string, (env: Env) => unknown> = {
  engine: (env) => readEngineConfig({ FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', ...env }),
  facade: (env) => readFacadeConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, ...env }),
  worker: (env) => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, ...env }),
  cli: (env) => readCliConfig({ FLOWHOOK_DATA_DIR: '/nonexistent/flowhook', ...env }),
  start: (env) => readStartConfig(env),
};

/** The message each reader stops with, or `accepted`. */
function answers(readers: string[], env: Env): Record<string, string> {
  const found: Record<string, string> = {};
  for (const reader of readers) {
    try {
      READERS[reader]!(env);
      found[reader] = 'accepted';
    } catch (error) {
      found[reader] = (error as Error).message;
    }
  }
  return found;
}

function agree(t: import('ava').ExecutionContext, readers: string[], env: Env, expected: string): void {
  t.deepEqual(
    answers(readers, env),
    Object.fromEntries(readers.map((reader) => [reader, expected])),
    JSON.stringify(env),
  );
}

test('a byte count is decimal digits in every process: 1e6 is refused by the engine as by the facade', (t) => {
  agree(
    t,
    ['engine', 'facade'],
    { FLOWHOOK_MAX_BODY_BYTES: '1e6' },
    'FLOWHOOK_MAX_BODY_BYTES must be an integer >= 1, got "1e6"',
  );
  agree(t, ['engine', 'facade'], { FLOWHOOK_MAX_BODY_BYTES: '1000000' }, 'accepted');
});

test('a base URL with a query or fragment is refused by every process that reads it', (t) => {
  agree(
    t,
    ['facade', 'worker', 'cli', 'start'],
    { FLOWHOOK_ENGINE_URL: 'http://engine:7049/?x=1' },
    'FLOWHOOK_ENGINE_URL must be an http(s) URL without a query or fragment, got "http://engine:7049/?x=1"',
  );
  agree(
    t,
    ['engine', 'facade'],
    { FLOWHOOK_PUBLIC_URL: 'https://hooks.example.com/#top' },
    'FLOWHOOK_PUBLIC_URL must be an http(s) URL without a query or fragment, got "https://hooks.example.com/#top"',
  );
  agree(
    t,
    ['facade', 'worker', 'cli'],
    { FLOWHOOK_ENGINE_URL: 'engine:7049' },
    'FLOWHOOK_ENGINE_URL must be an http(s) URL, got "engine:7049"',
  );
});

test('one log-level reader: the same words, the same refusal', (t) => {
  agree(
    t,
    ['engine', 'facade', 'worker'],
    { FLOWHOOK_LOG_LEVEL: 'verbose' },
    'FLOWHOOK_LOG_LEVEL must be one of debug, info, warn, error, got "verbose"',
  );
  agree(t, ['engine', 'facade', 'worker'], { FLOWHOOK_LOG_LEVEL: 'WARN' }, 'accepted');
});

test('ports: one parser; 0 (a free port) where flowhook opens the listener, refused where the port is handed on', (t) => {
  agree(
    t,
    ['engine', 'facade', 'worker'],
    { FLOWHOOK_FACADE_PORT: '70000' },
    'FLOWHOOK_FACADE_PORT must be a port number (0..65535), got "70000"',
  );
  agree(
    t,
    ['engine', 'worker'],
    { FLOWHOOK_ENGINE_PORT: '7049.0' },
    'FLOWHOOK_ENGINE_PORT must be a port number (0..65535), got "7049.0"',
  );
  agree(t, ['engine', 'worker'], { FLOWHOOK_ENGINE_PORT: '0' }, 'accepted');
  agree(
    t,
    ['start', 'worker'],
    { FLOWHOOK_TEMPORAL_UI_PORT: '0' },
    'FLOWHOOK_TEMPORAL_UI_PORT must be a port number (1..65535), got "0"',
  );
  agree(
    t,
    ['start'],
    { FLOWHOOK_EMBEDDED_POSTGRES_PORT: '0' },
    'FLOWHOOK_EMBEDDED_POSTGRES_PORT must be a port number (1..65535), got "0"',
  );
});

test('the instance is one path segment for the engine as for the facade', (t) => {
  agree(
    t,
    ['engine', 'facade'],
    { FLOWHOOK_INSTANCE: 'a/b' },
    'FLOWHOOK_INSTANCE must be one URL path segment (letters, digits, . _ ~ -), got "a/b"',
  );
});

test('tokens: 16 characters (admin tokens 32) and no white space, wherever they are read; never quoted', (t) => {
  const admin =
    'FLOWHOOK_ADMIN_TOKEN must have at least 32 characters and no white space (it opens every admin service and the console: make one with `openssl rand -base64 32`)';
  agree(t, ['engine', 'cli'], { FLOWHOOK_ADMIN_TOKEN: 'short' }, admin);
  agree(t, ['engine', 'cli'], { FLOWHOOK_ADMIN_TOKEN: 'an-admin-token-of-31-characters' }, admin);
  agree(
    t,
    ['engine', 'facade', 'worker'],
    { FLOWHOOK_METRICS_TOKEN: 'a token with spaces' },
    'FLOWHOOK_METRICS_TOKEN must have at least 16 characters and no white space',
  );
  agree(
    t,
    ['facade', 'worker'],
    { FLOWHOOK_ENGINE_TOKEN: 'short' },
    'FLOWHOOK_ENGINE_TOKEN must have at least 16 characters and no white space',
  );
});

test('TEMPORAL_TLS is a switch: a word that is not one stops engine and worker instead of meaning off', (t) => {
  agree(t, ['engine', 'worker'], { TEMPORAL_TLS: 'yes' }, 'TEMPORAL_TLS must be true or false, got "yes"');
  t.is(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, TEMPORAL_TLS: 'TRUE' }).temporal.tls, true);
  t.is(
    readEngineConfig({ FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', TEMPORAL_TLS: '1' }).temporal.tls,
    true,
  );
});

test("the worker reads flowhook's own ports with the same parser as the processes that listen on them", (t) => {
  agree(
    t,
    ['engine', 'worker'],
    { FLOWHOOK_ENGINE_METRICS_PORT: 'metrics' },
    'FLOWHOOK_ENGINE_METRICS_PORT must be a port number (0..65535) or off, got "metrics"',
  );
  agree(
    t,
    ['engine', 'worker'],
    { FLOWHOOK_CODEC_PORT: '8234x' },
    'FLOWHOOK_CODEC_PORT must be a port number (0..65535) or off, got "8234x"',
  );
});
