// SIGTERM to facade and engine while a sync call is in flight: they stop
// accepting, finish the call, then exit 0.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { startProcessStack } from '../support/process-stack.ts';
import { startTargetServer } from '../support/target-server.ts';
import { flow } from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

test('an in-flight sync call is answered while facade and engine shut down', async (t) => {
  const target = await startTargetServer(() => ({ delayMs: 1500, body: '{"slow": true}' }));
  const stack = await startProcessStack();
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: 'Draining' });
    const { accessKey } = await admin.createUser({ name: 'drain-user', company: 'Draining' });
    const definition = flow(
      'Draining',
      'draining',
      { activity: 'drain.test', responseMode: 'WAIT_FOR_RESPONSE_STEP' },
      [
        { name: 'upstream', httpRequest: { description: 'slow upstream', url: `${target.url}/slow`, method: 'POST' } },
        { respond: { statusCode: 200, body: '{{Steps.upstream.body}}' } },
      ],
    );
    const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
    const inFlight = fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Draining`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`drain-user:${accessKey}`).toString('base64')}`,
      },
      body: JSON.stringify({ activity: 'drain.test', secret, payload: {} }),
    });
    await target.waitFor('/slow');
    const exits = Promise.all([stack.terminate('facade'), stack.terminate('engine')]);
    const response = await inFlight;
    t.is(response.status, 200);
    t.is(JSON.parse(JSON.parse(await response.text()).value).body, '{"slow": true}');
    t.deepEqual(await exits, [0, 0]);
  } finally {
    await stack.stop();
    await target.close();
  }
});
