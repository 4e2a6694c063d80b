// Hook secrets end to end against a real engine: set from stdin through the
// CLI, listed as metadata only, rotated with an overlap in which both secrets
// verify (the previous one dropped at call time when the overlap ends, even
// from a cached entry), generated, refused for a wrong company or a malformed
// secret, re-wrapped by `secret-store rotate`, and deleted. The lookup under
// test runs on its own change feed and ORM, as another engine's would: every
// change reaches it through PostgreSQL notifications, not through a restart.
import test from 'ava';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import pino from 'pino';
import { startChangeFeed, type ChangeFeed } from '../../engine/infrastructure/cache/change-feed.ts';
import { createHookSecretLookup, type HookSecretLookup } from '../../engine/domain/direct/hook-secret-lookup.ts';
import { SecretKeyring } from '../../engine/infrastructure/secret-store/secret-keyring.ts';
import { Company } from '../../engine/infrastructure/storage/entities.ts';
import { openOrm } from '../../engine/infrastructure/storage/orm.ts';
import type { HookSecrets } from '../../engine/domain/direct/verification/index.ts';
import { runCapturing } from '../support/cli-runner.ts';
import { equalTo, eventually } from '../support/eventually.ts';
import { startProcessStack } from '../support/process-stack.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { deployFlow, flow } from '../support/webhook-helpers.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));
const COMPANY = 'Hook Co';
const STRIPE = 'payments.stripe';
const STANDARD = 'orders.standard';

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** `flowhook …` as a real process with its own stdin. */
function cliProcess(env: Record<string, string>, args: string[], stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

/** The same commands in this process (quicker), with `stdin` piped into them. */
function cliInProcess(stack: TestStack): (args: string[], stdin?: string) => Promise<Run> {
  return (args, stdin = '') =>
    runCapturing(args, {
      admin: {
        client: stack.admin,
        secretStdin: () => ({ stream: Readable.from([Buffer.from(stdin, 'utf8')]), isTTY: false }),
      },
    });
}

interface OtherEngine {
  orm: MikroORM;
  feed: ChangeFeed;
  lookup: HookSecretLookup;
  hits: number;
  find(activity: string): Promise<HookSecrets | undefined>;
  close(): Promise<void>;
}

/** A lookup with its own ORM, change feed and keyring, like another engine on the same database. */
async function otherEngine(databaseUrl: string, keyFile: string): Promise<OtherEngine> {
  const orm = await openOrm({ databaseUrl });
  const feed = startChangeFeed(databaseUrl, pino({ level: 'silent' }), { heartbeatIntervalMs: 500 });
  const engine: OtherEngine = {
    orm,
    feed,
    hits: 0,
    // A long maximum age: an entry that went stale could only be refreshed by the change feed within the test.
    lookup: createHookSecretLookup(feed, new SecretKeyring({ kind: 'file', path: keyFile }), {
      maxAgeMs: 120_000,
      observeLookups: () => (hit) => void (hit && engine.hits++),
    }),
    async find(activity) {
      const em = orm.em.fork();
      const company = await em.findOneOrFail(Company, { name: COMPANY });
      return engine.lookup.find(em, company.id, activity);
    },
    async close() {
      await feed.close();
      await orm.close(true);
    },
  };
  await eventually(() => feed.live, { timeoutMs: 10_000, intervalMs: 50, what: "the other engine's change feed live" });
  return engine;
}

test('hook secrets: set from stdin, list, rotate with overlap, generate, refuse, secret-store rotate, delete — seen by another engine', async (t) => {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'flowhook-keys-')), 'secrets-key');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const stack = await startStack({
    withoutWorker: true,
    env: { FLOWHOOK_SECRETS_KEY: '', FLOWHOOK_SECRETS_KEY_FILE: keyFile },
  });
  const databaseUrl = stack.env.FLOWHOOK_DATABASE_URL!;
  const other = await otherEngine(databaseUrl, keyFile);
  try {
    t.true(other.feed.live, 'the other engine listens');
    await stack.admin.createCompany({ name: COMPANY });
    const published = await deployFlow(
      stack,
      flow(COMPANY, 'stripe-in', { activity: STRIPE, direct: { verify: { stripe: {} } } }, [
        { log: { message: 'paid' } },
      ]),
    );
    t.true(
      published.warnings.some(
        (warning) =>
          warning.includes(`no signing secret yet`) && warning.includes(`flowhook hook-secret set 'Hook Co' ${STRIPE}`),
      ),
      published.warnings.join('\n'),
    );
    await deployFlow(
      stack,
      flow(COMPANY, 'standard-in', { activity: STANDARD, direct: { verify: { standardWebhooks: {} } } }, [
        { log: { message: 'ordered' } },
      ]),
    );
    const cli = cliInProcess(stack);
    const env = { FLOWHOOK_ENGINE_URL: stack.engineUrl, FLOWHOOK_ADMIN_TOKEN: stack.adminToken };

    // No secret yet: nothing to verify with.
    t.is(await other.find(STRIPE), undefined);

    // Set from stdin through the real CLI process; the trailing newline is not part of the secret.
    const first = `whsec_${randomBytes(24).toString('hex')}`;
    const set = await cliProcess(env, ['hook-secret', 'set', COMPANY, 'Payments.Stripe'], `${first}\n`);
    t.is(set.code, 0, set.err);
    t.regex(set.out, /Set the signing secret of activity payments\.stripe in company "Hook Co"/);
    t.false(set.out.includes(first) || set.err.includes(first));
    t.deepEqual(await eventually(() => other.find(STRIPE), { until: equalTo({ current: first }) }), { current: first });
    // Served from the other engine's cache now.
    const hitsBefore = other.hits;
    t.deepEqual(await other.find(STRIPE), { current: first });
    t.is(other.hits, hitsBefore + 1);

    // Listing shows metadata only.
    const listed = await cli(['hook-secret', 'list', '--company', COMPANY, '--json']);
    t.is(listed.code, 0, listed.err);
    const list = JSON.parse(listed.out) as { secrets: Record<string, unknown>[] };
    t.is(list.secrets.length, 1);
    t.deepEqual(Object.keys(list.secrets[0]!).sort(), ['activity', 'company', 'routePublished', 'updatedAt']);
    t.like(list.secrets[0], { company: COMPANY, activity: STRIPE, routePublished: true });
    t.false(listed.out.includes(first));
    const table = await cli(['hook-secret', 'list']);
    t.regex(
      table.out,
      /COMPANY +ACTIVITY +SET +PREVIOUS VALID UNTIL +ROUTE\nHook Co +payments\.stripe +\S+ +- +published/,
    );

    // Rotation with a 2 s overlap: both verify, then only the new one — with no change announced in between.
    const second = `whsec_${randomBytes(24).toString('hex')}`;
    const rotated = await cli(['hook-secret', 'set', COMPANY, STRIPE, '--overlap', '2s', '--json'], second);
    t.is(rotated.code, 0, rotated.err);
    const until = Date.parse(JSON.parse(rotated.out).previousValidUntil as string);
    t.true(until > Date.now() && until <= Date.now() + 2000, rotated.out);
    t.deepEqual(await eventually(() => other.find(STRIPE), { until: equalTo({ current: second, previous: first }) }), {
      current: second,
      previous: first,
    });
    const hitsInOverlap = other.hits;
    // No change is announced when the overlap ends: its deadline passing is the event itself.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now()) + 50));
    t.deepEqual(
      await other.find(STRIPE),
      { current: second },
      'the overlap ends at its deadline, even for a cached entry',
    );
    t.is(other.hits, hitsInOverlap + 1, 'that answer came from the cache: the deadline is checked per call');
    t.regex((await cli(['hook-secret', 'list'])).out, /payments\.stripe +\S+ +- +published/);

    // Overlap bounds and secret rules; no message quotes the secret.
    const tooLong = await cli(['hook-secret', 'set', COMPANY, STRIPE, '--overlap', '8d'], second);
    t.is(tooLong.code, 1);
    t.regex(tooLong.err, /invalid argument: overlap: 0 to 604800 seconds/);
    const malformed = 'whsec_c2hvcnQ=';
    const refused = await cli(['hook-secret', 'set', COMPANY, STANDARD], `${malformed}\n`);
    t.is(refused.code, 1);
    t.regex(
      refused.err,
      /invalid argument: hook secret for "orders\.standard" is not valid:\n- a Standard Webhooks secret decodes to 24\.\.64 bytes; this one has 5/,
    );
    t.false(refused.err.includes(malformed));
    const spaced = await cli(['hook-secret', 'set', COMPANY, STRIPE], ` ${second}\n\n`);
    t.is(spaced.code, 1);
    t.regex(spaced.err, /starts or ends with white space/);
    t.deepEqual(await other.find(STRIPE), { current: second }, 'a refused set changes nothing');

    // Generated for the Standard Webhooks route, shown once; refused for Stripe, which issues its own.
    const generated = await cli(['hook-secret', 'set', COMPANY, STANDARD, '--generate', '--json']);
    t.is(generated.code, 0, generated.err);
    const generatedSecret = JSON.parse(generated.out).generatedSecret as string;
    t.regex(generatedSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    t.deepEqual(await eventually(() => other.find(STANDARD), { until: equalTo({ current: generatedSecret }) }), {
      current: generatedSecret,
    });
    const human = await cli(['hook-secret', 'set', COMPANY, STANDARD, '--generate']);
    t.regex(human.out, /signing secret \(give it to the sender\) — shown once.*\n {4}whsec_\S+\n$/);
    const stripeGenerate = await cli(['hook-secret', 'set', COMPANY, STRIPE, '--generate']);
    t.is(stripeGenerate.code, 1);
    t.regex(stripeGenerate.err, /stripe issues the signing secret itself/);

    // A wrong company is NOT_FOUND with the spelling hint.
    const wrong = await cli(['hook-secret', 'set', 'hook co', STRIPE], second);
    t.is(wrong.code, 1);
    t.regex(wrong.err, /not found: Company "hook co" does not exist; did you mean "Hook Co"\?/);

    // Key rotation re-wraps hook secrets; with the old key gone, they still decrypt.
    const before = await rows(databaseUrl);
    const rotation = await cliProcess(env, ['secret-store', 'rotate', '--json']);
    t.is(rotation.code, 0, rotation.err);
    const { currentKeyId, rewrapped } = JSON.parse(rotation.out) as { currentKeyId: string; rewrapped: number };
    t.is(rewrapped, 2, 'two current hook secrets (the expired previous one is dropped, not re-wrapped)');
    const after = await rows(databaseUrl);
    t.true(before.every((row) => row.key_id !== currentKeyId));
    t.true(
      after.every(
        (row) =>
          row.key_id === currentKeyId &&
          row.secret_ciphertext.startsWith(`fh1.${currentKeyId}.`) &&
          row.previous_ciphertext === null,
      ),
    );
    writeFileSync(keyFile, `${readFileSync(keyFile, 'utf8').split('\n')[0]}\n`, { mode: 0o600 });
    const fresh = await otherEngine(databaseUrl, keyFile);
    try {
      t.deepEqual(await fresh.find(STRIPE), { current: second });
      t.true((await fresh.find(STANDARD))?.current.startsWith('whsec_'));
    } finally {
      await fresh.close();
    }

    // Delete: confirmation required, then the route has no secret, in every engine.
    const unconfirmed = await cli(['hook-secret', 'delete', COMPANY, STRIPE]);
    t.is(unconfirmed.code, 1);
    t.regex(unconfirmed.err, /repeat with --yes/);
    const deleted = await cli(['hook-secret', 'delete', COMPANY, STRIPE, '--yes']);
    t.is(deleted.code, 0, deleted.err);
    t.is(await eventually(() => other.find(STRIPE), { until: equalTo(undefined) }), undefined);
    const again = await cli(['hook-secret', 'delete', COMPANY, STRIPE, '--yes', '--json']);
    t.is(again.code, 1);
    t.is(JSON.parse(again.out).error.code, 'not_found');

    // The flow card says where the provider posts and that its secret is missing again.
    const card = await cli(['flow', 'show', COMPANY, 'stripe-in']);
    t.regex(
      card.out,
      /Provider route\n {2}Method +POST\n {2}URL +https:\/\/hooks\.example\.test\/BC\/hooks\/Hook%20Co\/payments\.stripe\n {2}Verification +stripe\n {2}Signing secret +no signing secret yet: flowhook hook-secret set 'Hook Co' payments\.stripe/,
    );
  } finally {
    await other.close();
    await stack.close();
  }
});

async function rows(
  databaseUrl: string,
): Promise<{ key_id: string; secret_ciphertext: string; previous_ciphertext: string | null }[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return (await db.query(`select key_id, secret_ciphertext, previous_ciphertext from hook_secret`)).rows;
  } finally {
    await db.end();
  }
}

test('no hook secret reaches the engine logs, even at debug level and in refusals', async (t) => {
  const stack = await startProcessStack();
  const secrets: string[] = [];
  try {
    const env = { FLOWHOOK_ENGINE_URL: stack.engineUrl, FLOWHOOK_ADMIN_TOKEN: stack.env.FLOWHOOK_ADMIN_TOKEN! };
    t.is((await cliProcess(env, ['company', 'create', COMPANY])).code, 0);
    const applied = await cliProcess(env, ['flow', 'apply', '--publish', writeFlowFile()]);
    t.is(applied.code, 0, applied.err);
    const good = `whsec_${randomBytes(32).toString('base64')}`;
    const bad = `whsec_${randomBytes(5).toString('base64')}`;
    secrets.push(good, bad);
    t.is((await cliProcess(env, ['hook-secret', 'set', COMPANY, STANDARD], `${good}\n`)).code, 0);
    const refused = await cliProcess(env, ['hook-secret', 'set', COMPANY, STANDARD, '--overlap', '1h'], `${bad}\n`);
    t.is(refused.code, 1);
    const generated = await cliProcess(
      env,
      ['hook-secret', 'set', COMPANY, STANDARD, '--generate', '--overlap', '1h', '--json'],
      '',
    );
    t.is(generated.code, 0, generated.err);
    secrets.push(JSON.parse(generated.out).generatedSecret);
    const listed = await cliProcess(env, ['hook-secret', 'list', '--json']);
    t.is(listed.code, 0);
    for (const secret of secrets) t.false(listed.out.includes(secret));
    t.is((await cliProcess(env, ['hook-secret', 'delete', COMPANY, STANDARD, '--yes'])).code, 0);
  } finally {
    await stack.stop();
  }
  const output = stack.output();
  t.true(output.length > 0, 'the processes did log something');
  t.is(secrets.length, 3);
  for (const secret of secrets) {
    t.false(output.includes(secret), 'a hook secret appears in the logs');
    t.false(output.includes(secret.slice('whsec_'.length)), 'a hook secret without its prefix appears in the logs');
  }
});

function writeFlowFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'flowhook-flow-')), 'standard.flow.yaml');
  writeFileSync(
    path,
    `company: ${COMPANY}
name: standard-in
trigger:
  webhook:
    activity: ${STANDARD}
    direct:
      verify:
        standardWebhooks: {}
steps:
  - log: { message: ordered }
`,
  );
  return path;
}
