// kill -9 of the engine or the facade while calls are in flight: every caller
// gets either an error or the flow's answer — never a 200 without a durable
// execution — and a caller that retries with its Idempotency-Key after the
// restart gets exactly one execution.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { canConnect } from '../../bin/embedded/free-port.ts';
import { startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { testInfrastructure } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { eventually } from '../support/eventually.ts';
import { flow, runsOf } from '../support/webhook-helpers.ts';

interface Outcome {
  key: string;
  status: number | 'network-error';
  executionId: string | null;
  body: string;
}

interface Setup {
  stack: ProcessStack;
  target: TargetServer;
  temporal: Client;
  connection: Connection;
  call(activity: string, key: string): Promise<Outcome>;
}

async function setUp(): Promise<Setup> {
  const target = await startTargetServer(() => ({ delayMs: 1500 }));
  const stack = await startProcessStack();
  const connection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
  await admin.createCompany({ name: 'Crashy' });
  const { accessKey } = await admin.createUser({ name: 'crash-user', company: 'Crashy' });
  const secrets: Record<string, string> = {};
  const deploy = async (activity: string, webhook: Record<string, unknown>, steps: unknown[]) => {
    const definition = flow('Crashy', activity.replace('.', '-'), { activity, ...webhook }, steps);
    secrets[activity] = (
      await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true })
    ).secret;
  };
  await deploy('crash.instant', {}, [{ log: { description: 'ran', message: 'ran' } }]);
  await deploy('crash.sync', { responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
    { httpRequest: { description: 'slow target', method: 'GET', url: `${target.url}/slow` } },
    { respond: { statusCode: 200, body: 'answered' } },
  ]);
  const auth = `Basic ${Buffer.from(`crash-user:${accessKey}`).toString('base64')}`;
  const call = async (activity: string, key: string): Promise<Outcome> => {
    try {
      const response = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Crashy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth, 'idempotency-key': key },
        body: JSON.stringify({ activity, secret: secrets[activity], payload: { key } }),
        signal: AbortSignal.timeout(30_000),
      });
      return {
        key,
        status: response.status,
        executionId: response.headers.get('x-flowhook-execution-id'),
        body: await response.text(),
      };
    } catch {
      return { key, status: 'network-error', executionId: null, body: '' };
    }
  };
  return { stack, target, connection, temporal: new Client({ connection }), call };
}

async function tearDown(setup: Setup | undefined): Promise<void> {
  await setup?.stack.stop();
  await setup?.connection.close();
  await setup?.target.close();
}

/** Calls started every few milliseconds for `ms`, as a busy sender would make them. */
async function traffic(
  setup: Setup,
  activity: string,
  prefix: string,
  ms: number,
  everyMs: number,
): Promise<Promise<Outcome>[]> {
  const calls: Promise<Outcome>[] = [];
  for (const end = Date.now() + ms; Date.now() < end;) {
    calls.push(setup.call(activity, `${prefix}-${calls.length}`));
    // The sender's rhythm is what this simulates: a pause between calls, not a wait for something.
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return calls;
}

async function waitForPort(url: string): Promise<void> {
  const { port } = new URL(url);
  await eventually(() => canConnect('127.0.0.1', Number(port)), { timeoutMs: 60_000, what: `port ${port} open again` });
}

/** The status of the execution a 200 named; describe() throws when Temporal has none. */
async function executionOf(setup: Setup, executionId: string): Promise<string> {
  const description = await setup.temporal.workflow.getHandle(executionId).describe();
  return description.status.name;
}

async function checkEveryAnswer(t: import('ava').ExecutionContext, setup: Setup, outcomes: Outcome[]): Promise<void> {
  for (const outcome of outcomes) {
    if (outcome.status === 200) {
      t.truthy(outcome.executionId, `a 200 without an execution id (${outcome.key})`);
      // describe() throws when Temporal has no such execution: a 200 must name a durable one.
      t.regex(await executionOf(setup, outcome.executionId!), /RUNNING|COMPLETED/);
    } else if (outcome.status !== 'network-error') {
      // A dead engine is a 503 (retry with the key). A 500 only as the engine's own answer that the flow
      // failed: its httpRequest step asks the engine for its egress list and waits for an engine that is
      // down (workflows/activities/engine-outage-wait.ts), but not forever — a transport error is never a 500.
      const error = JSON.parse(outcome.body).error as { code: string; message: string };
      if (outcome.status === 500)
        t.regex(
          error.message,
          /^The flow failed before it responded \(execution crash\.[a-z]+:/,
          `${outcome.key}: ${outcome.body}`,
        );
      else t.is(outcome.status, 503, `${outcome.key}: ${outcome.status} ${outcome.body}`);
      t.is(error.code, outcome.status === 500 ? 'InternalServerError' : 'ServiceUnavailable');
    }
  }
}

/** Retried with the same key after the restart: 200, and one execution per key however many tries. */
async function retryAll(
  t: import('ava').ExecutionContext,
  setup: Setup,
  activity: string,
  outcomes: Outcome[],
): Promise<void> {
  for (const first of outcomes) {
    const retry = await setup.call(activity, first.key);
    t.is(retry.status, 200, `${first.key}: ${retry.body}`);
    if (first.status === 200) t.is(retry.executionId, first.executionId);
    t.is(await runsOf(setup.temporal, retry.executionId!), 1, `one execution for ${first.key}`);
  }
}

test.serial(
  'kill -9 of the engine mid-traffic: a 200 always names a durable execution; keyed retries after the restart start nothing twice',
  async (t) => {
    let setup: Setup | undefined;
    try {
      setup = await setUp();
      const sync = await traffic(setup, 'crash.sync', 'engine-sync', 600, 100);
      const instant = traffic(setup, 'crash.instant', 'engine-instant', 1500, 20);
      // Mid-traffic is the point: the kill lands about halfway through the 1.5 s burst of instant calls.
      await new Promise((resolve) => setTimeout(resolve, 700));
      await setup.stack.crash('engine');
      const instantCalls = await instant;
      const outcomes = await Promise.all([...sync, ...instantCalls]);
      // Some calls ran into the dead engine: they were told so, with a 503.
      t.true(
        outcomes.some((o) => o.status === 503),
        JSON.stringify(outcomes.map((o) => o.status)),
      );
      t.true(outcomes.some((o) => o.status === 200));
      await checkEveryAnswer(t, setup, outcomes);

      setup.stack.launch('engine');
      await waitForPort(setup.stack.engineUrl);
      // The facade reconnects by itself.
      await retryAll(
        t,
        setup,
        'crash.sync',
        outcomes.filter((o) => o.key.startsWith('engine-sync')),
      );
      await retryAll(
        t,
        setup,
        'crash.instant',
        outcomes.filter((o) => o.key.startsWith('engine-instant')),
      );
    } finally {
      await tearDown(setup);
    }
  },
);

test.serial(
  'kill -9 of the facade while sync calls wait: callers see the connection fail, started flows still finish',
  async (t) => {
    let setup: Setup | undefined;
    try {
      setup = await setUp();
      const calls = await traffic(setup, 'crash.sync', 'facade-sync', 500, 100);
      // A sync call waits on its flow once the flow's slow request has reached the target.
      await setup.target.waitFor('/slow');
      await setup.stack.crash('facade');
      const outcomes = await Promise.all(calls);
      t.true(
        outcomes.every((o) => o.status === 'network-error'),
        JSON.stringify(outcomes.map((o) => o.status)),
      );

      setup.stack.launch('facade');
      await waitForPort(setup.stack.facadeUrl);
      await retryAll(t, setup, 'crash.sync', outcomes);
    } finally {
      await tearDown(setup);
    }
  },
);
