// The secret store through the real CLI: `connection set` reads the secret from
// stdin (never argv) and prints no secret; `secret-store rotate` on a key-file
// engine generates a new key, re-wraps the stored secret under it, and the
// connection keeps signing requests; so does its old spelling `secrets
// rotate-key`, with a note on stderr. An engine without a key says how to get one.
import test from 'ava';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { echo, startRouteServer } from '../support/outbound-servers.ts';
import { startStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow } from '../support/webhook-helpers.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

function cli(
  env: Record<string, string>,
  args: string[],
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

test('connection set reads stdin, secret-store rotate re-wraps under a new key, and the connection still signs', async (t) => {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'flowhook-keys-')), 'secrets-key');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const api = await startRouteServer();
  api.route('/api/ping', echo);
  const stack = await startStack({ env: { FLOWHOOK_SECRETS_KEY: '', FLOWHOOK_SECRETS_KEY_FILE: keyFile } });
  try {
    const tenant = await createTenant(stack, 'Keyed');
    const env = { FLOWHOOK_ENGINE_URL: stack.engineUrl, FLOWHOOK_ADMIN_TOKEN: stack.adminToken };
    const token = `tok-${randomBytes(16).toString('hex')}`;
    const set = await cli(
      env,
      ['connection', 'set', 'Keyed', 'api', '--type', 'bearer', '--base-url', `${api.url}/api`, '--json'],
      `${token}\n`,
    );
    t.is(set.code, 0, set.stderr);
    t.false(set.stdout.includes(token) || set.stderr.includes(token));
    const keyBefore = JSON.parse(set.stdout).connection.keyId as string;

    const rotated = await cli(env, ['secret-store', 'rotate', '--json']);
    t.is(rotated.code, 0, rotated.stderr);
    const rotation = JSON.parse(rotated.stdout);
    t.true(rotation.generated);
    t.is(rotation.rewrapped, 1);
    t.deepEqual(rotation.retiredKeyIds, [keyBefore]);
    t.is(readFileSync(keyFile, 'utf8').trim().split('\n').length, 2);
    const db = new pg.Client({ connectionString: stack.env.FLOWHOOK_DATABASE_URL });
    await db.connect();
    const row = (await db.query(`select key_id, secret_ciphertext from connection`)).rows[0];
    await db.end();
    t.is(row.key_id, rotation.currentKeyId);
    t.true((row.secret_ciphertext as string).startsWith(`fh1.${rotation.currentKeyId}.`));
    t.false((row.secret_ciphertext as string).includes(token));

    const definition = flow('Keyed', 'keyed', { activity: 'keyed.ping', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { name: 'ping', httpRequest: { connection: 'api', url: '/ping' } },
      { respond: { statusCode: 200, body: '${ $string(Steps.ping.json.headers.authorization) }' } },
    ]);
    const { secret } = await deployFlow(stack, definition);
    const answer = await callWebhook(stack, { company: 'Keyed', activity: 'keyed.ping', secret, auth: tenant.auth });
    t.is(answer.value?.body, `Bearer ${token}`);

    // The old spelling still rotates for one release: the note goes to stderr, stdout stays one JSON document.
    const old = await cli(env, ['secrets', 'rotate-key', '--json']);
    t.is(old.code, 0, old.stderr);
    t.is(
      old.stderr,
      'flowhook: "secrets rotate-key" is deprecated and will be removed in the next release; use "secret-store rotate"\n',
    );
    const again = JSON.parse(old.stdout);
    t.true(again.generated);
    t.is(again.rewrapped, 1);
    t.deepEqual(again.retiredKeyIds, [rotation.currentKeyId, keyBefore]);
    t.is(readFileSync(keyFile, 'utf8').trim().split('\n').length, 3);
  } finally {
    await stack.close();
    await api.close();
  }
});

test('without a secret store key, storing a connection is refused with what to set', async (t) => {
  const stack = await startStack({ env: { FLOWHOOK_SECRETS_KEY: '', FLOWHOOK_SECRETS_KEY_FILE: '' } });
  try {
    await createTenant(stack, 'Keyless');
    const result = await cli(
      { FLOWHOOK_ENGINE_URL: stack.engineUrl, FLOWHOOK_ADMIN_TOKEN: stack.adminToken },
      ['connection', 'set', 'Keyless', 'x', '--type', 'bearer', '--allowed-host', 'api.example.com'],
      'value',
    );
    t.is(result.code, 1);
    t.regex(result.stderr, /failed precondition: the secret store has no key: set FLOWHOOK_SECRETS_KEY/);
  } finally {
    await stack.close();
  }
});
