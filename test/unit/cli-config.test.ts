// Where the admin CLI finds the engine and its admin token.
import test from 'ava';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCliConfig, requireAdminToken } from '../../bin/cli/cli-config.ts';
import { CHECKOUT_DATA_DIR, cliDataDir } from '../../bin/data-dir.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'flowhook-cli-config-'));

test('defaults: local engine, .flowhook, no token', (t) => {
  const config = readCliConfig({ FLOWHOOK_DATA_DIR: dataDir() });
  t.is(config.engineUrl, 'http://127.0.0.1:7049');
  t.is(config.adminToken, undefined);
  const error = t.throws(() => requireAdminToken(config));
  t.regex(error!.message, /FLOWHOOK_ADMIN_TOKEN/);
  t.regex(error!.message, /admin-token/);
  // The current directory's .flowhook when there is one, else the checkout's (npm link, any directory).
  t.is(
    cliDataDir(undefined, process.cwd()),
    existsSync(join(process.cwd(), '.flowhook')) ? join(process.cwd(), '.flowhook') : CHECKOUT_DATA_DIR,
  );
  const elsewhere = mkdtempSync(join(tmpdir(), 'flowhook-cwd-'));
  t.is(cliDataDir(undefined, elsewhere), CHECKOUT_DATA_DIR);
  mkdirSync(join(elsewhere, '.flowhook'));
  t.is(cliDataDir(undefined, elsewhere), join(elsewhere, '.flowhook'));
});

test('the token file written by `flowhook start` is used when the variable is unset', (t) => {
  const dir = dataDir();
  writeFileSync(join(dir, 'admin-token'), 'token-from-the-file-1234\n');
  const config = readCliConfig({ FLOWHOOK_DATA_DIR: dir });
  t.is(requireAdminToken(config), 'token-from-the-file-1234');
  t.is(config.adminTokenSource, join(dir, 'admin-token'));
  t.is(
    readCliConfig({ FLOWHOOK_DATA_DIR: dir, FLOWHOOK_ADMIN_TOKEN: 'from-the-variable-of-32-characters' }).adminToken,
    'from-the-variable-of-32-characters',
  );
});

test('the engine URL is checked and loses a trailing slash', (t) => {
  t.is(readCliConfig({ FLOWHOOK_ENGINE_URL: 'http://engine:9000/' }).engineUrl, 'http://engine:9000');
  t.throws(() => readCliConfig({ FLOWHOOK_ENGINE_URL: 'engine:9000' }), { message: /FLOWHOOK_ENGINE_URL/ });
  t.throws(() => readCliConfig({ FLOWHOOK_ENGINE_URL: 'not a url' }), { message: /FLOWHOOK_ENGINE_URL/ });
});
