// The secret store through the real CLI: `connection set` reads the secret from
// stdin (never argv) and prints no secret; `secret-store rotate` on a key-file
// engine generates a new key, re-wraps the stored secret and the delivery log's
// stored bodies under it, and the connection keeps signing requests; so does
// its old spelling `secrets rotate-key`, with a note on stderr; an engine
// started with only the newest key still shows a delivery stored under the
// first one. The delivery bodies go in batches, skipping rows another
// transaction holds, whose key is then not called removable. An engine without
// a key says how to get one.
import test from 'ava';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { readEngineConfig } from '../../engine/config.ts';
import { openRequest, sealRequest } from '../../engine/domain/deliveries/delivery-body.ts';
import { runEngine } from '../../engine/main.ts';
import { rotateSecretsKey } from '../../engine/infrastructure/secret-store/key-rotation.ts';
import { keyId, SecretKeyring } from '../../engine/infrastructure/secret-store/secret-keyring.ts';
import { openOrm } from '../../engine/infrastructure/storage/orm.ts';
import { eventually } from '../support/eventually.ts';
import { echo, startRouteServer } from '../support/outbound-servers.ts';
import { createTestDatabase, startStack } from '../support/stack.ts';
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

const PAYLOAD = '{"order":  12345678901234567890, "note": "a  b"}';

test('connection set reads stdin, secret-store rotate re-wraps under a new key, and the connection still signs', async (t) => {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'flowhook-keys-')), 'secrets-key');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const api = await startRouteServer();
  api.route('/api/ping', echo);
  const stack = await startStack({ env: { FLOWHOOK_SECRETS_KEY: '', FLOWHOOK_SECRETS_KEY_FILE: keyFile } });
  let lone: Awaited<ReturnType<typeof runEngine>> | undefined;
  const db = new pg.Client({ connectionString: stack.env.FLOWHOOK_DATABASE_URL });
  await db.connect();
  /** The delivery log's rows that keep a body, as stored. */
  const bodies = async () =>
    (await db.query(`select id, key_id, convert_from(body, 'UTF8') as body from delivery where body is not null`))
      .rows as { id: string; key_id: string; body: string }[];
  try {
    const tenant = await createTenant(stack, 'Keyed');
    // An accepted call before any rotation: its body is stored under the first key.
    const { secret: ordersSecret } = await deployFlow(
      stack,
      flow('Keyed', 'orders', { activity: 'keyed.orders' }, [{ respond: { statusCode: 200, body: 'ok' } }]),
    );
    const ordered = await callWebhook(stack, {
      company: 'Keyed',
      activity: 'keyed.orders',
      secret: ordersSecret,
      auth: tenant.auth,
      payloadText: PAYLOAD,
    });
    t.is(ordered.status, 200);
    const [stored] = await eventually(bodies, { until: (rows) => rows.length === 1, what: 'the stored body' });
    const firstKey = stored!.key_id;
    t.true(stored!.body.startsWith(`fh1.${firstKey}.`));
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
    t.is(keyBefore, firstKey);
    t.true(rotation.generated);
    t.is(rotation.rewrapped, 1);
    t.is(rotation.deliveriesRewrapped, 1, 'the stored delivery body, counted apart');
    t.deepEqual(rotation.retiredKeyIds, [keyBefore]);
    t.is(readFileSync(keyFile, 'utf8').trim().split('\n').length, 2);
    const [moved] = await bodies();
    t.like(moved, { id: stored!.id, key_id: rotation.currentKeyId });
    t.true(moved!.body.startsWith(`fh1.${rotation.currentKeyId}.`));
    t.is(
      moved!.body.split('.')[3],
      stored!.body.split('.')[3],
      "only the data key is re-wrapped: the body's ciphertext, bound to its row, is the same",
    );
    const row = (await db.query(`select key_id, secret_ciphertext from connection`)).rows[0];
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
    // That call's body is stored too (under the new key): both are there before the next rotation.
    await eventually(bodies, { until: (rows) => rows.length === 2, what: "the ping call's stored body" });

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
    t.is(again.deliveriesRewrapped, 2);
    t.deepEqual(again.retiredKeyIds, [rotation.currentKeyId, keyBefore]);
    const keys = readFileSync(keyFile, 'utf8').trim().split('\n');
    t.is(keys.length, 3);

    // The retired keys removed, as the command says one may: an engine with only the newest key
    // still shows the first call's exact payload.
    writeFileSync(keyFile, `${keys[0]}\n`, { mode: 0o600 });
    lone = await runEngine(readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0' }));
    const loneEnv = { FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${lone.port}`, FLOWHOOK_ADMIN_TOKEN: stack.adminToken };
    const shown = await cli(loneEnv, ['delivery', 'show', stored!.id, '--json']);
    t.is(shown.code, 0, shown.stderr);
    t.is((JSON.parse(shown.stdout) as { body: string }).body, PAYLOAD);
    const human = await cli(loneEnv, ['secret-store', 'rotate']);
    t.is(human.code, 0, human.stderr);
    t.regex(
      human.stdout,
      /^Generated a new key [0-9a-f]{16} and re-wrapped 1 secret and 2 stored delivery bodies under it\.\nThe older key [0-9a-f]{16} protects no secret or delivery body any more/,
    );
  } finally {
    await lone?.close();
    await db.end();
    await stack.close();
    await api.close();
  }
});

test('delivery bodies are re-wrapped in batches; a row held by another transaction keeps its key from being called removable', async (t) => {
  const databaseUrl = await createTestDatabase();
  const orm = await openOrm({ databaseUrl });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const holder = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  try {
    const [first, second, lost] = [0, 1, 2].map(() => randomBytes(32).toString('base64'));
    const old = new SecretKeyring({ kind: 'env', keys: [first!] });
    const ring = new SecretKeyring({ kind: 'env', keys: [second!, first!] });
    const request = (n: number) => ({ body: Buffer.from(`{"n": ${n}}`), query: `n=${n}` });
    const insert = async (id: string, sealed: { body: Buffer; keyId: string } | null) =>
      db.query(
        `insert into delivery (id, received_at, route, outcome, status, body, key_id) values ($1, now(), 'endpoint', 'accepted', 200, $2, $3)`,
        [id, sealed?.body ?? null, sealed?.keyId ?? null],
      );
    const ids = Array.from({ length: 7 }, (_, n) => `00000000-0000-4000-8000-00000000000${n}`);
    for (const [n, id] of ids.entries()) await insert(id, sealRequest(old, id, request(n)));
    // Without a body, no key; under a key the ring lacks, left as it is (it cannot be re-wrapped).
    await insert('00000000-0000-4000-8000-0000000000aa', null);
    const lostId = '00000000-0000-4000-8000-0000000000bb';
    await insert(lostId, sealRequest(new SecretKeyring({ kind: 'env', keys: [lost!] }), lostId, request(99)));
    const constraint = await t.throwsAsync(
      insert('00000000-0000-4000-8000-0000000000cc', { body: Buffer.from('x'), keyId: null! }),
    );
    t.regex(constraint!.message, /delivery_key_id_check/, 'a body always names its key');

    await holder.query('begin');
    await holder.query('select 1 from delivery where id = $1 for update', [ids[3]]);
    const held = await rotateSecretsKey(orm.em.fork(), ring, { deliveryBatch: 2 });
    t.like(held, { generated: false, rewrapped: 0, deliveriesRewrapped: 6, retiredKeyIds: [] });
    await holder.query('rollback');
    const rest = await rotateSecretsKey(orm.em.fork(), ring, { deliveryBatch: 2 });
    t.like(rest, { deliveriesRewrapped: 1, retiredKeyIds: [old.current().id] });

    const rows = (await db.query(`select id, body, key_id from delivery where body is not null order by id`)).rows as {
      id: string;
      body: Buffer;
      key_id: string;
    }[];
    const onlySecond = new SecretKeyring({ kind: 'env', keys: [second!] });
    for (const [n, id] of ids.entries()) {
      const row = rows.find((r) => r.id === id)!;
      t.is(row.key_id, ring.current().id);
      t.deepEqual(openRequest(onlySecond, id, row.body), { body: request(n).body, query: `n=${n}` });
    }
    t.is(rows.find((r) => r.id === lostId)!.key_id, keyId(Buffer.from(lost!, 'base64')));
    t.like(await rotateSecretsKey(orm.em.fork(), ring, { deliveryBatch: 2 }), { deliveriesRewrapped: 0 });
  } finally {
    await holder.end();
    await db.end();
    await orm.close(true);
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
