// doNotLogPayload and process logs: engine, worker and facade run as real
// processes at debug level; flows that log, fail and call an unreachable URL
// built from the payload never make them print the payload.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { startProcessStack } from '../support/process-stack.ts';
import { flow } from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

test('the payload of a doNotLogPayload flow appears in no process log, also when its steps fail', async (t) => {
  const stack = await startProcessStack();
  const card = `CARD-${randomBytes(8).toString('hex')}`;
  // The same calling flow without the flag: its marker must show up, or the test would prove nothing.
  const control = `OPEN-${randomBytes(8).toString('hex')}`;
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: 'Private' });
    const { accessKey } = await admin.createUser({ name: 'private-user', company: 'Private' });
    const deploy = async (activity: string, webhook: Record<string, unknown>, steps: unknown[]) =>
      (await admin.applyFlow({ flow: fromJson(FlowSchema, flow('Private', activity.replace('.', '-'), { activity, doNotLogPayload: true, ...webhook }, steps) as never), publish: true })).secret;
    const calling = await deploy('private.call', { responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { log: { description: 'Note the card', message: 'card {{Trigger.Payload.card}}' } },
      { httpRequest: { description: 'Unreachable upstream', url: 'http://127.0.0.1:1/charge/{{Trigger.Payload.card}}', maxAttempts: 1, timeout: '2s' } },
    ]);
    const open = (await admin.applyFlow({ flow: fromJson(FlowSchema, flow('Private', 'open-call', { activity: 'open.call', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { httpRequest: { description: 'Unreachable upstream', url: 'http://127.0.0.1:1/charge/{{Trigger.Payload.card}}', maxAttempts: 1, timeout: '2s' } },
    ]) as never), publish: true })).secret;
    const failing = await deploy('private.fail', {}, [{ fail: { description: 'Refuse', message: 'refused {{Trigger.Payload.card}}' } }]);
    const post = (activity: string, secret: string, value = card) =>
      fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Private`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`private-user:${accessKey}`).toString('base64')}` },
        body: JSON.stringify({ activity, secret, payload: { card: value } }),
      });
    t.is((await post('private.call', calling)).status, 500, 'the failed call answers 500');
    t.is((await post('private.fail', failing)).status, 200);
    t.is((await post('open.call', open, control)).status, 500);
    // Let the Instant-return flow fail in the worker before the processes stop.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  } finally {
    await stack.stop();
  }
  const output = stack.output();
  t.true(output.length > 0);
  t.false(output.includes(card), `the card number is in a process log:\n${output.split('\n').filter((line) => line.includes(card)).join('\n')}`);
  t.true(output.includes(control), 'without the flag the same failure is logged with its reason');
});
