// `flowhook start` as a new user runs it (here on the run's PostgreSQL and
// Temporal, so it takes seconds): with stdout a pipe the credentials are in
// 0600 files rather than the output, the banner's curl works as printed, the
// endpoint listens on loopback only, components log at the documented level
// (info), admin commands work from another directory, and a restart names the
// commands that replace lost credentials.
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { eventually } from '../support/eventually.ts';
import { FLOWHOOK, startFlowhook, stopFlowhook as stop } from '../support/flowhook-start.ts';
import { createTestDatabase, testInfrastructure } from '../support/stack.ts';

/** Linux: the addresses a TCP port is listening on, from /proc/net/tcp{,6} (state 0A = LISTEN). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local?.endsWith(`:${hexPort}`)) found.push(local.split(':')[0]!);
    }
  }
  return found;
}

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('start: the printed curl works, loopback only, info logs, CLI from anywhere, restart hints', async (t) => {
  const { temporalAddress } = testInfrastructure();
  const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-start-'));
  const [facadePort, enginePort] = [await findFreePort(), await findFreePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FLOWHOOK_DATA_DIR: dataDir,
    FLOWHOOK_DATABASE_URL: await createTestDatabase(),
    TEMPORAL_ADDRESS: temporalAddress,
    FLOWHOOK_FACADE_PORT: String(facadePort),
    FLOWHOOK_ENGINE_PORT: String(enginePort),
    FLOWHOOK_ENGINE_METRICS_PORT: '0',
    FLOWHOOK_WORKER_METRICS_PORT: '0',
    FLOWHOOK_FACADE_METRICS_PORT: '0',
    FLOWHOOK_TASK_QUEUE: `start-${Math.random().toString(36).slice(2, 8)}`,
  };
  delete env.FLOWHOOK_LOG_LEVEL;
  delete env.FLOWHOOK_FACADE_HOST;
  delete env.FLOWHOOK_ADMIN_TOKEN;

  const first = await startFlowhook(env);
  try {
    t.regex(
      first.banner,
      /listening on\s+127\.0\.0\.1 only \(FLOWHOOK_FACADE_HOST=0\.0\.0\.0 opens the endpoint to the network\)/,
    );
    // The console on its own loopback port (7054, or a free one while another start holds that), signed in to with the admin token file.
    const consoleUrl = /^ {2}console\s+(http:\/\/127\.0\.0\.1:\d+)\s+\(sign in with the admin token in (\S+)\)$/m.exec(
      first.banner,
    );
    t.truthy(consoleUrl, first.banner);
    t.is(consoleUrl![2], join(dataDir, 'admin-token'));
    const signIn = await fetch(`${consoleUrl![1]}/flowhook.engine.v1.ConsoleService/SignIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: consoleUrl![1] },
      body: JSON.stringify({ adminToken: readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() }),
    });
    t.is(signIn.status, 200, await signIn.clone().text());
    t.like(await signIn.json(), { person: { name: 'flowhook-cli' } });
    t.deepEqual(listeningAddresses(facadePort), ['0100007F'], 'the facade listens on 127.0.0.1 only');

    // stdout is a pipe (as under systemd or docker): the credentials are in 0600 files, not in the output.
    const credentialsFile = /^ {2}(\S+first-run-credentials\.json) {3}\(mode 0600/m.exec(first.banner)?.[1];
    t.is(credentialsFile, join(dataDir, 'first-run-credentials.json'), first.banner);
    const credentials = JSON.parse(readFileSync(credentialsFile!, 'utf8')) as {
      serviceUser: string;
      accessKey: string;
      secret: string;
    };
    t.like(credentials, { serviceUser: 'flowhook-service' });
    t.false(first.output().includes(credentials.accessKey), 'no access key on stdout or stderr');
    t.false(first.output().includes(credentials.secret), 'no flow secret on stdout or stderr');
    for (const file of ['first-run-credentials.json', 'first-run-request.json', 'first-run.netrc'])
      t.is(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);

    // The printed curl, as printed: the key from the netrc file, the body (with the secret) from the request file.
    const curl = /^ {2}(curl [^\n]+\\\n[^\n]+\\\n[^\n]+)$/m.exec(first.banner)?.[1];
    t.truthy(curl, first.banner);
    t.false(curl!.includes(credentials.accessKey), 'the key is not on the command line');
    const netrc = /--netrc-file '([^']+)'/.exec(curl!)?.[1];
    const body = /-d @'([^']+)'/.exec(curl!)?.[1];
    const url = /'(http:\/\/[^']+flowWebhook_Invoke\?company=Default)'/.exec(curl!)?.[1];
    const login = /^machine localhost login (\S+) password (\S+)$/m.exec(readFileSync(netrc!, 'utf8'));
    t.deepEqual([login?.[1], login?.[2]], [credentials.serviceUser, credentials.accessKey]);
    const answer = await fetch(url!.replace('localhost', '127.0.0.1'), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${login![1]}:${login![2]}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: readFileSync(body!, 'utf8'),
    });
    const text = await answer.text();
    t.is(answer.status, 200, text);
    t.regex(JSON.parse(JSON.parse(text).value).body, /Hello, Ada!/);
    // Where curl is installed, the command itself runs as a user would paste it.
    if (spawnSync('curl', ['--version']).status === 0) {
      const pasted = spawnSync('sh', ['-c', curl!], { encoding: 'utf8' });
      t.is(pasted.status, 0, pasted.stderr);
      t.regex(JSON.parse(JSON.parse(pasted.stdout).value).body, /Hello, Ada!/);
    }

    // The CLI works from another directory: the data directory (and its admin token) is found through the environment.
    const listed = await run(
      ['company', 'list'],
      { ...env, FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${enginePort}` },
      tmpdir(),
    );
    t.is(listed.code, 0, listed.err);
    t.regex(listed.out, /Default/);
    // Each process got its own service account on the first run; tokens stay in 0600 files.
    const accounts = await run(
      ['service-account', 'list'],
      { ...env, FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${enginePort}` },
      tmpdir(),
    );
    t.regex(accounts.out, /flowhook-cli\s+admin/);
    t.regex(accounts.out, /flowhook-facade\s+invoke\s+all\s+yes/);
    t.regex(accounts.out, /flowhook-worker\s+records\s+-\s+no/);
    for (const file of ['admin-token', 'facade-token', 'worker-token'])
      t.is(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);

    // Info is the documented default level: the call above logged its `webhook invoked` line.
    const invokedLine = /"level":30[^\n]*"msg":"webhook invoked"/;
    t.regex(
      await eventually(() => first.output(), {
        until: (output) => invokedLine.test(output),
        what: 'the call logged',
        show: () => 'no "webhook invoked" line',
      }),
      invokedLine,
    );
  } finally {
    t.is(await stop(first), 0);
  }

  // The second run as a script would start it: one JSON line.
  const second = await startFlowhook(env, true);
  try {
    const line = JSON.parse(second.banner.trim().split('\n').pop()!) as Record<string, unknown>;
    t.like(line, {
      status: 'running',
      webhookUrl: `http://localhost:${facadePort}/BC/ODataV4/flowWebhook_Invoke?company=Default`,
      engineUrl: `http://127.0.0.1:${enginePort}`,
      dataDir,
      firstRun: null,
      replaceLostCredentials: {
        flowSecret: 'flowhook secret rotate Default examples.hello',
        accessKey: 'flowhook user rotate-key flowhook-service',
      },
    });
    t.regex(String(line.consoleUrl), /^http:\/\/127\.0\.0\.1:\d+$/);
    // Each component's metrics port scrapes from loopback; the facade's is not its public port, which wants the token.
    const metricsUrls = line.metricsUrls as Record<'facade' | 'engine' | 'worker', string>;
    t.notRegex(metricsUrls.facade, new RegExp(`:${facadePort}/`));
    for (const [component, url] of Object.entries(metricsUrls))
      t.regex(await (await fetch(url)).text(), new RegExp(`^flowhook_${component}_`, 'm'), url);
    t.is((await fetch(`http://127.0.0.1:${facadePort}/metrics`)).status, 403);
  } finally {
    t.is(await stop(second), 0);
  }
});

test('flowhook --version prints the package version', async (t) => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const result = await run(['--version'], process.env, tmpdir());
  t.is(result.code, 0);
  t.is(result.out.trim(), version);
});
