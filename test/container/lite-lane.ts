// The -lite tag in the container lane: `flowhook start` in one container (embedded PostgreSQL,
// the Temporal dev server, engine, worker and facade), as its user, on a read-only root
// filesystem with /data a directory of the host; the first run's example flow answers a webhook
// call made with the credentials it left in /data. Node's own test runner, `node <this file>`.
// FLOWHOOK_IMAGE names the production tag; this file runs its -lite sibling.
import assert from 'node:assert/strict';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { eventually } from '../support/eventually.ts';
import { exec, healthy, inspect, logs, podmanOk, remove, startRole } from './podman.ts';

const started = performance.now();
const say = (message: string) => process.stderr.write(`container lane (lite): ${message}\n`);
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const IMAGE = `${process.env.FLOWHOOK_IMAGE ?? `localhost/flowhook:${version}`}-lite`;
const NAME = `flowhook-lane-lite-${randomUUID().slice(0, 8)}`;
const RUNTIME_UID = 10001;
// The image's /data as a directory of the host, owned by the image's user as a volume must be.
const data = mkdtempSync(join(tmpdir(), 'flowhook-lite-data-'));
chownSync(data, RUNTIME_UID, RUNTIME_UID);

after(async () => {
  await remove([NAME]);
  rmSync(data, { recursive: true, force: true });
  say(`lite lane time ${((performance.now() - started) / 1000).toFixed(0)} s`);
});

void test('flowhook start in the -lite container answers the example flow, read-only and non-root', async () => {
  // The host's network (deploy/ci/containers.conf): every port of its own, metrics off.
  const port = async () => String(await findFreePort());
  const env = {
    FLOWHOOK_FACADE_PORT: await port(),
    FLOWHOOK_ENGINE_PORT: await port(),
    FLOWHOOK_EMBEDDED_POSTGRES_PORT: await port(),
    FLOWHOOK_TEMPORAL_PORT: await port(),
    FLOWHOOK_TEMPORAL_UI_PORT: await port(),
    FLOWHOOK_CONSOLE_PORT: await port(),
    FLOWHOOK_CODEC_PORT: await port(),
    FLOWHOOK_ENGINE_METRICS_PORT: 'off',
    FLOWHOOK_WORKER_METRICS_PORT: 'off',
    FLOWHOOK_FACADE_METRICS_PORT: 'off',
    // On the host's network the endpoint stays on loopback.
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
  };
  say(`starting ${IMAGE}…`);
  await startRole(IMAGE, NAME, 'start', env, [`${data}:/data`]);
  try {
    await eventually(() => healthy(NAME), {
      timeoutMs: 180_000,
      intervalMs: 1000,
      what: "the -lite container's health check passing",
    });
    const ready = async () =>
      (await exec(NAME, ['/app/node_modules/node/bin/node', '/app/deploy/image/healthcheck.js', 'readyz'])).code === 0;
    await eventually(ready, { timeoutMs: 120_000, intervalMs: 1000, what: '/readyz answering 200' });
  } catch (error) {
    say(`container log:\n${await logs(NAME, 80)}`);
    throw error;
  }
  assert.equal(await inspect(NAME, '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}'), '10001:10001 true');

  const netrc = /login (\S+) password (\S+)/.exec(readFileSync(join(data, 'first-run.netrc'), 'utf8'));
  assert.ok(netrc, 'the first run left its netrc in /data');
  const response = await fetch(
    `http://127.0.0.1:${env.FLOWHOOK_FACADE_PORT}/BC/ODataV4/flowWebhook_Invoke?company=Default`,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${netrc[1]}:${netrc[2]}`).toString('base64')}`,
      },
      body: readFileSync(join(data, 'first-run-request.json')),
    },
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(text, /Hello, /);

  await podmanOk(['stop', '--time', '30', NAME]);
  assert.equal(await inspect(NAME, '{{.State.ExitCode}}'), '0', 'exit code after SIGTERM');
});
