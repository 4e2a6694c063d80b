// The late answer with engine, worker and facade as real processes at debug
// log level: a doNotLogPayload flow's late answer reaches its caller and
// appears in no log line; a long-poll holds one of the engine's sync-call
// slots (here: 1), so another long-poll meanwhile is 429; and a long-poll in
// flight ends early (202) when the engine shuts down, instead of holding the
// shutdown for its whole wait.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { fetchAnswer } from '../support/answer-helpers.ts';
import { startProcessStack } from '../support/process-stack.ts';
import { startTargetServer } from '../support/target-server.ts';
import { flow } from '../support/webhook-helpers.ts';

const COMPANY = 'Late Co';

test('a doNotLogPayload late answer reaches the caller and no log; a long-poll ends when the engine stops', async (t) => {
  // /hidden answers after 2.5 s (past the 1 s window); /never keeps its flow running past the engine's shutdown.
  const target = await startTargetServer((request) => ({ delayMs: request.path === '/hidden' ? 2500 : 8000 }));
  const stack = await startProcessStack({ env: { FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS: '1' } });
  const card = `4111-${Math.random().toString().slice(2, 12)}`;
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: COMPANY });
    const { accessKey } = await admin.createUser({ name: 'late-user', company: COMPANY });
    const auth = `Basic ${Buffer.from(`late-user:${accessKey}`).toString('base64')}`;
    const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 1 };
    const deploy = async (name: string, webhook: Record<string, unknown>, steps: unknown[]) =>
      (
        await admin.applyFlow({
          flow: fromJson(FlowSchema, flow(COMPANY, name, webhook, steps) as never),
          publish: true,
        })
      ).secret;
    const hiddenSecret = await deploy('hidden', { activity: 'late.hidden', doNotLogPayload: true, ...sync }, [
      { httpRequest: { description: 'Slow upstream', url: `${target.url}/hidden`, method: 'POST', timeout: '10s' } },
      {
        respond: {
          description: 'Echo the card',
          statusCode: 200,
          contentType: 'application/json',
          body: '${ {"card": Trigger.Payload.card} }',
        },
      },
    ]);
    const neverSecret = await deploy('never', { activity: 'late.never', ...sync }, [
      {
        httpRequest: { description: 'Very slow upstream', url: `${target.url}/never`, method: 'POST', timeout: '30s' },
      },
    ]);
    const post = async (activity: string, secret: string, payload: unknown) => {
      const response = await fetch(
        `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ activity, secret, payload }),
        },
      );
      t.is(response.status, 200);
      return response.headers.get('x-flowhook-execution-id')!;
    };

    const hiddenId = await post('late.hidden', hiddenSecret, { card });
    const late = await fetchAnswer(stack.facadeUrl, { company: COMPANY, executionId: hiddenId, auth, wait: 10 });
    t.is(late.status, 200, late.text);
    t.deepEqual(JSON.parse(late.value!.body), { card });

    const neverId = await post('late.never', neverSecret, {});
    const polling = fetchAnswer(stack.facadeUrl, { company: COMPANY, executionId: neverId, auth, wait: 30 });
    // Nothing observable marks the long-poll as holding its slot (the engine logs a fetch when it ends),
    // so it is given a moment, well inside its 30 s wait.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await fetchAnswer(stack.facadeUrl, { company: COMPANY, executionId: neverId, auth, wait: 5 });
    t.is(second.status, 429, second.text);
    t.truthy(second.headers.get('retry-after'));
    t.is(
      (await fetchAnswer(stack.facadeUrl, { company: COMPANY, executionId: neverId, auth })).status,
      202,
      'a fetch that does not wait needs no slot',
    );
    const engineExit = stack.terminate('engine');
    const cut = await polling;
    t.is(cut.status, 202, cut.text);
    t.true(cut.ms < 15_000, `the long-poll ended with the engine (${cut.ms} ms of a 30 s wait)`);
    t.is(await engineExit, 0);
  } finally {
    await stack.stop();
    await target.close();
  }
  const output = stack.output();
  t.false(output.includes(card), 'the card appears in a log line');
  const fetched = output.split('\n').filter((line) => line.includes('"answer fetched"'));
  t.true(fetched.length >= 2, 'each fetch is logged once by the engine');
  for (const line of fetched) t.false(/"body"/.test(line), line);
});
