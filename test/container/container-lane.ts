// The container lane (deploy/ci/container-lane.sh runs it after building the image): the image's
// three roles as containers against the real Temporal server and PostgreSQL, driven as an
// operator would — the CLI from the image publishes the example flow, a webhook call answers,
// a worker container killed with kill -9 mid-flow is restarted and the flow completes exactly
// once — every container runs as a non-root user on a read-only root filesystem, and each stops
// cleanly on SIGTERM as PID 1.
// Not an ava file (`npm test` must not run it): node's own test runner, `node <this file>`.
// FLOWHOOK_IMAGE names the image (default localhost/flowhook:<package.json version>).
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { exec, healthy, inspect, podmanOk } from './podman.ts';
import { ROLES, startLaneDeployment, type LaneDeployment } from './lane-deployment.ts';

const started = performance.now();
const say = (message: string) => process.stderr.write(`container lane: ${message}\n`);
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const IMAGE = process.env.FLOWHOOK_IMAGE ?? `localhost/flowhook:${version}`;
const NODE = '/app/node_modules/node/bin/node';
const flows = mkdtempSync(join(tmpdir(), 'flowhook-lane-flows-'));
let deployment: LaneDeployment;
let failed = false;

before(async () => {
  deployment = await startLaneDeployment(IMAGE, say);
});

after(async () => {
  if (failed && deployment) say(`container logs:\n${await deployment.logs()}`);
  await deployment?.stop();
  rmSync(flows, { recursive: true, force: true });
  say(`lane time ${((performance.now() - started) / 1000).toFixed(0)} s`);
});

/** A test body whose failure also prints the containers' logs. */
function step(body: () => Promise<void>): () => Promise<void> {
  return () =>
    body().catch((error: unknown) => {
      failed = true;
      throw error;
    });
}

void test(
  'engine, worker and facade containers pass their health checks and turn ready',
  step(async () => {
    for (const role of ROLES)
      await eventually(() => healthy(deployment.names[role]), {
        timeoutMs: 120_000,
        intervalMs: 1000,
        what: `${role}: the image's HEALTHCHECK passing`,
      });
    // Readiness asks the dependencies too: the facade is ready once engine, PostgreSQL, Temporal and a polling worker are.
    for (const role of ['worker', 'facade'] as const) {
      const ready = async () =>
        (await exec(deployment.names[role], [NODE, '/app/deploy/image/healthcheck.js', 'readyz'])).code === 0;
      await eventually(ready, { timeoutMs: 120_000, intervalMs: 1000, what: `${role}: /readyz answering 200` });
    }
  }),
);

void test(
  'every container runs as the non-root user on a read-only root filesystem, without a shell',
  step(async () => {
    for (const role of ROLES) {
      const name = deployment.names[role];
      assert.equal(await inspect(name, '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}'), '10001:10001 true', role);
      const uid = await exec(name, [
        NODE,
        '-p',
        "require('fs').readFileSync('/proc/1/status','utf8').match(/^Uid:\\s+(\\d+)/m)[1]",
      ]);
      assert.equal(uid.out.trim(), '10001', `${role}: PID 1's user`);
      for (const path of ['/app/written-by-lane', '/etc/written-by-lane', '/written-by-lane']) {
        const write = await exec(name, [NODE, '-e', `require('fs').writeFileSync(${JSON.stringify(path)}, 'x')`]);
        assert.notEqual(write.code, 0, `${role}: writing ${path} must fail`);
        assert.match(write.err, /EROFS|EACCES/, `${role}: writing ${path}`);
      }
      assert.equal(
        (await exec(name, [NODE, '-e', "require('fs').writeFileSync('/tmp/written-by-lane', 'x')"])).code,
        0,
        `${role}: /tmp is writable`,
      );
      assert.notEqual((await exec(name, ['/bin/sh', '-c', 'true'])).code, 0, `${role}: no shell in the image`);
    }
  }),
);

/** Publishes a flow file with the CLI from the image; returns the flow secret it shows once. */
async function publish(path: string, volumes: string[] = []): Promise<string> {
  const applied = await deployment.cli(['flow', 'apply', path, '--publish', '--json'], volumes);
  assert.equal(applied.code, 0, `flow apply ${path}: ${applied.err}${applied.out}`);
  const secret = /"secret":\s*"([^"]+)"/.exec(applied.out)?.[1];
  assert.ok(secret, `flow apply printed no secret: ${applied.out}`);
  return secret;
}

let auth = '';
async function callWebhook(
  activity: string,
  secret: string,
  payload: unknown,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${deployment.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Default`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify({ activity, secret, payload }),
  });
  return { status: response.status, text: await response.text() };
}

void test(
  'the CLI from the image publishes the example flow and its webhook answers 200',
  step(async () => {
    const company = await deployment.cli(['company', 'create', 'Default']);
    assert.equal(company.code, 0, company.err);
    const user = await deployment.cli(['user', 'create', 'lane-caller', '--company', 'Default', '--json']);
    assert.equal(user.code, 0, user.err);
    auth = `Basic ${Buffer.from(`lane-caller:${(JSON.parse(user.out) as { accessKey: string }).accessKey}`).toString('base64')}`;
    const secret = await publish('/app/examples/flows/hello-webhook.flow.yaml');
    const answer = await callWebhook('examples.hello', secret, { name: 'container' });
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.text, /Hello, container!/);
  }),
);

interface Listed {
  executions?: { executionId?: string; status?: string }[];
}
async function executionsOf(flow: string): Promise<{ executionId?: string; status?: string }[]> {
  const listed = await deployment.cli(['execution', 'list', '--flow', flow, '--json']);
  assert.equal(listed.code, 0, listed.err);
  return (JSON.parse(listed.out) as Listed).executions ?? [];
}

void test(
  'a worker container killed with kill -9 mid-flow: restarted, the flow completes exactly once',
  step(async () => {
    // Answers at once, then sleeps: the kill lands while the execution waits on its timer.
    const flow = [
      'company: Default',
      'name: lane-sleep',
      'trigger:',
      '  webhook:',
      '    activity: lane.sleep',
      '    responseMode: WAIT_FOR_RESPONSE_STEP',
      'steps:',
    ];
    const steps = [
      '  - respond: { statusCode: 200, contentType: text/plain, body: "accepted" }',
      '  - sleep: { duration: 15s }',
      '  - log: { message: "woke up" }',
    ];
    // Mounted into the CLI's container, whose user (10001) reads it: as an operator's file would need to be.
    chmodSync(flows, 0o755);
    writeFileSync(join(flows, 'lane-sleep.flow.yaml'), [...flow, ...steps, ''].join('\n'), { mode: 0o644 });
    const secret = await publish('/flows/lane-sleep.flow.yaml', [`${flows}:/flows:ro`]);
    const answer = await callWebhook('lane.sleep', secret, {});
    assert.equal(answer.status, 200, answer.text);

    const worker = deployment.names.worker;
    await podmanOk(['kill', '--signal', 'KILL', worker]);
    await eventually(() => inspect(worker, '{{.State.Status}}'), {
      until: (status) => status === 'exited',
      timeoutMs: 20_000,
      what: 'the worker container stopped',
    });
    assert.equal(await inspect(worker, '{{.State.ExitCode}}'), '137', 'ended by SIGKILL');
    const during = await eventually(() => executionsOf('lane-sleep'), {
      until: (list) => list.length === 1,
      timeoutMs: 20_000,
      what: 'the execution listed',
    });
    assert.equal(during[0]?.status, 'RUNNING', 'mid-flow when the worker died');

    say('worker container killed mid-flow; starting it again');
    await podmanOk(['start', worker]);
    const done = await eventually(() => executionsOf('lane-sleep'), {
      until: (list) => list.some((execution) => execution.status !== 'RUNNING'),
      timeoutMs: 120_000,
      intervalMs: 1000,
      what: 'the execution finished after the restart',
    });
    assert.deepEqual(
      done.map((execution) => [execution.executionId, execution.status]),
      [[during[0]?.executionId, 'COMPLETED']],
      'exactly one execution, completed',
    );
  }),
);

void test(
  'podman stop (SIGTERM to PID 1) ends each role cleanly with exit code 0',
  step(async () => {
    // Facade first, then the worker (it drains), then the engine: the order of a rolling shutdown.
    for (const role of ['facade', 'worker', 'engine'] as const) {
      await podmanOk(['stop', '--time', '30', deployment.names[role]]);
      assert.equal(
        await inspect(deployment.names[role], '{{.State.ExitCode}}'),
        '0',
        `${role}: exit code after SIGTERM`,
      );
    }
  }),
);
