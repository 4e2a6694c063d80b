// deploy/compose.yaml's init-facade, init-worker and init-cli services: a one-shot run of the
// flowhook image (its Node, no shell) that makes sure one service account exists and that its token
// is in a file of the volume the role reads it from (docs/how-to/deploy.md, Service accounts for
// each process). Usage:
//
//   service-account.mjs <account> <token file> <flags of `flowhook service-account create`…>
//
// With the engine's bootstrap admin token (FLOWHOOK_ADMIN_TOKEN, from deploy/.env), each `up`:
//   - no such account: `flowhook service-account create`, and the token goes to the file;
//   - the account, and the file holds its current token (by the token's hint): nothing to do;
//   - the account, but no file or another token in it (a volume lost or a database restored, a
//     token rotated by hand): `flowhook service-account rotate`, and the new token goes to the file.
// Without it (retired after the first start), a file that is there is trusted as it is and a
// missing one is an error that says how to bring the token back.
// The file is written 0600 (FLOWHOOK_ENGINE_TOKEN_FILE refuses anything looser) by the user the
// roles run as, through a rename, so a role never reads half a token. Exit 0 when the file holds
// the token, 1 with the reason otherwise.
import { execFile } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const FLOWHOOK = '/app/bin/flowhook';
/** The engine is healthy before this runs; a restart of it in between is ridden out. */
const ATTEMPTS = 30;

const [account, tokenFile, ...createFlags] = process.argv.slice(2);
if (!account || !tokenFile || createFlags.length === 0) {
  fail('usage: service-account.mjs <account> <token file> <flags of flowhook service-account create…>');
}
const say = (line) => console.log(`${account}: ${line}`);

const stored = readToken(tokenFile);
if (!process.env.FLOWHOOK_ADMIN_TOKEN) {
  if (stored) {
    say(`token in ${tokenFile} (no FLOWHOOK_ADMIN_TOKEN to check it with)`);
    process.exit(0);
  }
  fail(
    `no token in ${tokenFile} and no FLOWHOOK_ADMIN_TOKEN to make one with. Set FLOWHOOK_ADMIN_TOKEN in deploy/.env ` +
      '(any 32+ characters: `openssl rand -hex 32`; the engine takes the one it is started with) and run `docker compose -f deploy/compose.yaml up -d` again',
  );
}

const listed = await flowhook(['service-account', 'list', '--json']);
const current = listed.accounts?.find((candidate) => candidate.name === account);
if (current && stored && current.tokenHint && stored.startsWith(current.tokenHint.replace(/…$/, ''))) {
  say(`token in ${tokenFile} is current${current.enabled ? '' : ' (the account is disabled)'}`);
  process.exit(0);
}
const made = current
  ? await flowhook(['service-account', 'rotate', account, '--json'])
  : await flowhook(['service-account', 'create', account, ...createFlags, '--json']);
if (typeof made.token !== 'string' || made.token === '') fail(`flowhook printed no token: ${JSON.stringify(made)}`);
writeFileSync(`${tokenFile}.new`, `${made.token}\n`, { mode: 0o600 });
renameSync(`${tokenFile}.new`, tokenFile);
say(`${current ? 'token rotated' : 'account created'}; its token is in ${tokenFile}`);

function readToken(path) {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    fail(`${path} cannot be read (${error.code ?? error.message})`);
  }
}

/** One admin command with --json: its JSON answer, retried while the engine is unavailable. */
async function flowhook(args) {
  const command = `flowhook ${args.slice(0, 2).join(' ')}`;
  for (let attempt = 1; ; attempt++) {
    // Exit 1 with a JSON error on stdout is an answer too: the CLI's error contract (bin/cli/admin-action.ts).
    const run = await promisify(execFile)(process.execPath, [FLOWHOOK, ...args], {
      env: process.env,
      timeout: 60_000,
    }).catch((error) => error);
    let answer;
    try {
      answer = JSON.parse(run.stdout);
    } catch {
      fail(`${command} failed: ${(run.stderr || run.stdout || run.message || '').trim()}`);
    }
    if (!answer.error) return answer;
    if (answer.error.code !== 'unavailable' || attempt >= ATTEMPTS)
      fail(`${command}: ${answer.error.code}: ${answer.error.message}`);
    await sleep(2000);
  }
}

function fail(message) {
  console.error(`service-account.mjs: ${account ? `${account}: ` : ''}${message}`);
  process.exit(1);
}
