// kill -9 of the worker in the middle of a flow: after a new worker starts,
// the flow finishes from where it was; a step that already ran is not
// repeated, and a step cut off mid-call is retried with the same
// Idempotency-Key so its target can tell.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { testInfrastructure } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

interface CrashRun {
  stack: ProcessStack;
  temporal: Client;
  /** Calls the flow's webhook once; resolves with the status, the execution id and the answer's value. */
  call(): Promise<{ status: number; executionId: string; value: { statusCode: number } }>;
}

/** A process stack with one published flow; `run` gets it, everything is stopped afterwards. */
async function withCrashableFlow(
  target: TargetServer,
  webhook: Record<string, unknown>,
  steps: unknown[],
  run: (crash: CrashRun) => Promise<void>,
): Promise<void> {
  const stack = await startProcessStack();
  const connection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: 'Crashy' });
    const { accessKey } = await admin.createUser({ name: 'crash-user', company: 'Crashy' });
    const definition = flow('Crashy', 'crashy', { activity: 'crash.test', ...webhook }, steps);
    const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
    const call = async () => {
      const response = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Crashy`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`crash-user:${accessKey}`).toString('base64')}`,
        },
        body: JSON.stringify({ activity: 'crash.test', secret, payload: {} }),
      });
      const text = await response.text();
      return {
        status: response.status,
        executionId: response.headers.get('x-flowhook-execution-id')!,
        value: JSON.parse(JSON.parse(text).value),
      };
    };
    await run({ stack, temporal: new Client({ connection }), call });
  } finally {
    await stack.stop();
    await connection.close();
    await target.close();
  }
}

test('a flow survives its worker being killed during a sleep after respond', async (t) => {
  const target = await startTargetServer();
  const steps = [
    { httpRequest: { description: 'before respond', url: `${target.url}/before/{{Execution.Id}}`, method: 'POST' } },
    { respond: { statusCode: 202, body: 'accepted' } },
    { sleep: { description: 'long enough to crash in', duration: '3s' } },
    { httpRequest: { description: 'after the crash', url: `${target.url}/after/{{Execution.Id}}`, method: 'POST' } },
  ];
  await withCrashableFlow(
    target,
    { responseMode: 'WAIT_FOR_RESPONSE_STEP' },
    steps,
    async ({ stack, temporal, call }) => {
      const answer = await call();
      t.is(answer.status, 200);
      t.is(answer.value.statusCode, 202);

      await stack.crash('worker'); // resolves once the process has exited
      stack.launch('worker');

      const result = await temporal.workflow.getHandle(answer.executionId).result();
      t.is(result.outcome, 'RESPONDED');
      t.is(
        target.received.filter((r) => r.path === `/before/${answer.executionId}`).length,
        1,
        'the step before the crash ran once',
      );
      t.is(
        target.received.filter((r) => r.path === `/after/${answer.executionId}`).length,
        1,
        'the step after the crash ran once',
      );
    },
  );
});

test('a worker killed while an httpRequest waits: the retry after restart carries the same Idempotency-Key, and the flow completes', async (t) => {
  // The first request hangs past the crash; the retry is answered at once.
  let requests = 0;
  const target = await startTargetServer(() => (++requests === 1 ? { delayMs: 10_000 } : {}));
  // A 1 s step timeout: Temporal gives up on the dead worker's attempt 6 s after it started.
  const steps = [
    {
      httpRequest: {
        description: 'charge',
        url: `${target.url}/charge/{{Execution.Id}}`,
        method: 'POST',
        timeout: '1s',
      },
    },
  ];
  await withCrashableFlow(target, {}, steps, async ({ stack, temporal, call }) => {
    const answer = await call();
    t.is(answer.status, 200);
    await target.waitFor(`/charge/${answer.executionId}`);
    await stack.crash('worker');
    stack.launch('worker');

    const result = await temporal.workflow.getHandle(answer.executionId).result();
    t.is(result.outcome, 'INSTANT_RETURN');
    const charges = target.received.filter((r) => r.path === `/charge/${answer.executionId}`);
    t.is(charges.length, 2, 'sent again after the crash (at least once)');
    t.truthy(charges[0]!.headers['idempotency-key']);
    t.is(
      charges[1]!.headers['idempotency-key'],
      charges[0]!.headers['idempotency-key'],
      'the target can tell it is the same step',
    );
  });
});
