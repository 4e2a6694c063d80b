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
