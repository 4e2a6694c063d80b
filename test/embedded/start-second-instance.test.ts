// A second `npm start` on the same data directory while the first runs — as a
// tutorial that restarts with new settings invites — must be refused before
// it touches anything: the first keeps its PostgreSQL and Temporal and keeps
// answering. After the first dies by kill -9, the next start takes the
// directory over and ends what the dead run left behind.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { isAlive, waitForExit } from '../../bin/embedded/process-liveness.ts';
import { resolveTemporalCli } from '../../bin/embedded/temporal-cli.ts';
import { FLOWHOOK, startFlowhook, startPorts, stopFlowhook, type StartedFlowhook } from '../support/flowhook-start.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function run(env: NodeJS.ProcessEnv): Promise<{ code: number | null; err: string; ms: number }> {
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FLOWHOOK, 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, err, ms: Date.now() - began }));
  });
}

/** The first-run call (the banner's curl, with its files), answered by the stack on this data directory. */
async function callHello(dataDir: string, facadePort: string): Promise<number> {
  const credentials = JSON.parse(readFileSync(join(dataDir, 'first-run-credentials.json'), 'utf8')) as {
    serviceUser: string;
    accessKey: string;
  };
  const answer = await fetch(`http://127.0.0.1:${facadePort}/BC/ODataV4/flowWebhook_Invoke?company=Default`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${credentials.serviceUser}:${credentials.accessKey}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: readFileSync(join(dataDir, 'first-run-request.json'), 'utf8'),
    signal: AbortSignal.timeout(30_000),
  });
  await answer.text();
  return answer.status;
}

/** The PIDs of the children a start spawned (PostgreSQL's postmaster, the dev server), from /proc. */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(/\s+/).map(Number);
}

test('a second start on a live data directory is refused and leaves the first running; after kill -9 the next one takes over', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-second-start-'));
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('FLOWHOOK_') && !name.startsWith('TEMPORAL_')),
  );
  Object.assign(env, {
    FLOWHOOK_DATA_DIR: dataDir,
    TEMPORAL_CLI: await resolveTemporalCli({ dataDir: join(ROOT, '.flowhook'), log: () => undefined }),
    FLOWHOOK_EMBEDDED_POSTGRES_PORT: String(await findFreePort()),
    ...(await startPorts()),
  });
  const first: StartedFlowhook = await startFlowhook(env);
  let leftovers: number[] = [];
  t.teardown(async () => {
    await stopFlowhook(first);
    for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  t.is(await callHello(dataDir, env.FLOWHOOK_FACADE_PORT!), 200);

  // The tutorial's restart with one more setting, while the first still runs.
  const second = await run({ ...env, FLOWHOOK_EGRESS_ALLOW: '127.0.0.1:8089' });
  t.is(second.code, 1, second.err);
  t.regex(
    second.err,
    new RegExp(
      `another flowhook start \\(pid ${first.child.pid}\\) is running on ${dataDir.replaceAll('/', '\\/')}: stop it first \\(Ctrl-C`,
    ),
  );
  t.notRegex(second.err, /stopping it|starting embedded PostgreSQL/, 'it touched nothing of the first');
  // The first still answers, on the same PostgreSQL and Temporal.
  t.is(await callHello(dataDir, env.FLOWHOOK_FACADE_PORT!), 200);

  // kill -9: the lock socket stays behind as a file, PostgreSQL and the dev server as orphans.
  leftovers = childrenOf(first.child.pid!);
  t.true(leftovers.length >= 2, `postgres and temporal were children: ${leftovers.join(', ')}`);
  first.child.kill('SIGKILL');
  await waitForExit(first.child.pid!, 10_000);
  const third = await startFlowhook(env);
  try {
    t.regex(third.output(), /a PostgreSQL \(pid \d+\) from an earlier run is still running/);
    t.is(await callHello(dataDir, env.FLOWHOOK_FACADE_PORT!), 200);
  } finally {
    t.is(await stopFlowhook(third), 0);
  }
  for (const pid of leftovers) t.false(isAlive(pid), `the dead run's child ${pid} was ended`);
});
