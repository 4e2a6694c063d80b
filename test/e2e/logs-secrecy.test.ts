// Engine, worker and facade as real processes at debug log level: after
// successful, unauthorized and failing calls, no secret, access key or token
// appears in anything they printed; SIGTERM stops each one cleanly.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { startProcessStack } from '../support/process-stack.ts';
import { flow } from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

const TRACED_REQUEST_ID = 'trace-4711';

test('no secret, access key or token reaches the logs of any process', async (t) => {
  const stack = await startProcessStack();
  const credentials: Record<string, string> = {};
  let tracedExecutionId = '';
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: 'Secretive' });
    const { accessKey } = await admin.createUser({ name: 'log-test-user', company: 'Secretive' });
    credentials.accessKey = accessKey;
    const definition = flow('Secretive', 'secretive', { activity: 'secret.keeping', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { log: { description: 'log the activity', message: 'called {{Trigger.Activity}}' } },
      { respond: { statusCode: 200, body: 'ok' } },
    ]);
    const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
    credentials.secret = secret;
    const url = `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Secretive`;
    const post = (body: unknown, key = accessKey, requestId?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`log-test-user:${key}`).toString('base64')}`,
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body: JSON.stringify(body),
      });

    const traced = await post({ activity: 'secret.keeping', secret, payload: { a: 1 } }, accessKey, TRACED_REQUEST_ID);
    t.is(traced.status, 200);
    tracedExecutionId = traced.headers.get('x-flowhook-execution-id') ?? '';
    const wrongSecret = `${secret.slice(0, 31)}#`;
    credentials.wrongSecret = wrongSecret;
    t.is((await post({ activity: 'secret.keeping', secret: wrongSecret, payload: {} })).status, 401);
    const wrongKey = `${accessKey.slice(0, 20)}WRONGKEY`;
    credentials.wrongKey = wrongKey;
    t.is((await post({ activity: 'secret.keeping', secret, payload: {} }, wrongKey)).status, 401);
    t.is((await post({ activity: 'unknown.one', secret, payload: {} })).status, 404);
  } finally {
    const codes = await stack.stop();
    t.deepEqual(codes, [0, 0, 0], 'each process exits 0 on SIGTERM');
  }
  const output = stack.output();
  t.true(output.length > 0, 'the processes did log something');
  t.is(Object.keys(credentials).length, 4);
  for (const [name, value] of Object.entries({ ...credentials, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN, serviceToken: stack.env.FLOWHOOK_SERVICE_TOKEN })) {
    t.false(output.includes(value!), `${name} appears in the logs`);
  }
  t.notRegex(output, /"secret"\s*:\s*"[^"[]/, 'no secret value in structured logs');
  t.false(/Basic [A-Za-z0-9+/=]{20,}/.test(output), 'no Basic credentials in the logs');

  // Facade and engine lines about the traced call carry its request id (the worker's carry the execution id).
  const lines = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  const aboutTraced = lines.filter((line) => line.name !== 'worker' && (line.executionId === tracedExecutionId || line.requestId === TRACED_REQUEST_ID));
  t.deepEqual([...new Set(aboutTraced.map((line) => line.name))].sort(), ['engine', 'facade']);
  for (const line of aboutTraced) t.is(line.requestId, TRACED_REQUEST_ID, JSON.stringify(line));
  t.true(lines.some((line) => line.name === 'worker' && line.workflowId === tracedExecutionId));
});
