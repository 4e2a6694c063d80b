// kill -9 of the worker in the middle of a flow: after a new worker starts,
// the flow finishes from where it was, and a step that already ran is not
// repeated.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { startProcessStack } from '../support/process-stack.ts';
import { startTargetServer } from '../support/target-server.ts';
import { testInfrastructure } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

test('a flow survives its worker being killed during a sleep after respond', async (t) => {
  const target = await startTargetServer();
  const stack = await startProcessStack();
  const connection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: 'Crashy' });
    const { accessKey } = await admin.createUser({ name: 'crash-user', company: 'Crashy' });
    const definition = flow('Crashy', 'crashy', { activity: 'crash.test', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { httpRequest: { description: 'before respond', url: `${target.url}/before/{{Execution.Id}}`, method: 'POST' } },
      { respond: { statusCode: 202, body: 'accepted' } },
      { sleep: { description: 'long enough to crash in', duration: '3s' } },
      { httpRequest: { description: 'after the crash', url: `${target.url}/after/{{Execution.Id}}`, method: 'POST' } },
    ]);
    const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
    const response = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Crashy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`crash-user:${accessKey}`).toString('base64')}` },
      body: JSON.stringify({ activity: 'crash.test', secret, payload: {} }),
    });
    t.is(response.status, 200);
    const executionId = response.headers.get('x-flowhook-execution-id')!;
    t.is(JSON.parse(JSON.parse(await response.text()).value).statusCode, 202);

    await stack.crash('worker');
    await new Promise((resolve) => setTimeout(resolve, 500));
    stack.launch('worker');

    const result = await new Client({ connection }).workflow.getHandle(executionId).result();
    t.is(result.outcome, 'RESPONDED');
    t.is(target.received.filter((r) => r.path === `/before/${executionId}`).length, 1, 'the step before the crash ran once');
    t.is(target.received.filter((r) => r.path === `/after/${executionId}`).length, 1, 'the step after the crash ran once');
  } finally {
    await stack.stop();
    await connection.close();
    await target.close();
  }
});

test('a worker killed while an httpRequest waits: the retry after restart carries the same Idempotency-Key, and the flow completes', async (t) => {
  // The first request hangs past the crash; the retry is answered at once.
  let requests = 0;
  const target = await startTargetServer(() => (++requests === 1 ? { delayMs: 10_000 } : {}));
  const stack = await startProcessStack();
  const connection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: 'Crashy' });
    const { accessKey } = await admin.createUser({ name: 'crash-user', company: 'Crashy' });
    const definition = flow('Crashy', 'crashy-http', { activity: 'crash.http' }, [
      // A 1 s step timeout: Temporal gives up on the dead worker's attempt 6 s after it started.
      { httpRequest: { description: 'charge', url: `${target.url}/charge/{{Execution.Id}}`, method: 'POST', timeout: '1s' } },
    ]);
    const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
    const response = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Crashy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`crash-user:${accessKey}`).toString('base64')}` },
      body: JSON.stringify({ activity: 'crash.http', secret, payload: {} }),
    });
    t.is(response.status, 200);
    const executionId = response.headers.get('x-flowhook-execution-id')!;
    await target.waitFor(`/charge/${executionId}`);
    await stack.crash('worker');
    stack.launch('worker');

    const result = await new Client({ connection }).workflow.getHandle(executionId).result();
    t.is(result.outcome, 'INSTANT_RETURN');
    const charges = target.received.filter((r) => r.path === `/charge/${executionId}`);
    t.is(charges.length, 2, 'sent again after the crash (at least once)');
    t.truthy(charges[0]!.headers['idempotency-key']);
    t.is(charges[1]!.headers['idempotency-key'], charges[0]!.headers['idempotency-key'], 'the target can tell it is the same step');
  } finally {
    await stack.stop();
    await connection.close();
    await target.close();
  }
});
