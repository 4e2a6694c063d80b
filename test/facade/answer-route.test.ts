// The late-answer route's facade half over real HTTP, in front of an
// in-memory WebhookService: how the OData function call is read (the
// execution id literal with a doubled quote, `wait`, company, caller), how
// each engine answer leaves (200 envelope, 202 while running, 500 for a
// failed flow, 404), and that metrics give the route one label.
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import {
  ExecutionState,
  InvokeOutcome,
  WebhookService,
  type GetAnswerRequest,
} from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { parseExecutionIdParameter, parseWait } from '../../facade/answer-route.ts';
import { createFacade, type ListeningFacade } from '../../facade/app.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { createFacadeLogger } from '../../facade/logger.ts';
import { createFacadeMetrics } from '../../facade/metrics/facade-metrics.ts';

const calls: GetAnswerRequest[] = [];
let facade: ListeningFacade;
let base: string;
const AUTH = `Basic ${Buffer.from('user:key').toString('base64')}`;

const metrics = createFacadeMetrics(undefined);

test.before(async () => {
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      invoke() {
        throw new ConnectError('not this route', Code.Unimplemented);
      },
      getAnswer(request) {
        calls.push(request);
        const activity = /^[a-z]+/.exec(request.executionId)![0];
        if (activity === 'unknown')
          throw new ConnectError(`No execution "${request.executionId}" of yours in this company`, Code.NotFound);
        const state =
          activity === 'running'
            ? ExecutionState.RUNNING
            : activity === 'failed'
              ? ExecutionState.FAILED
              : ExecutionState.COMPLETED;
        const answered = activity === 'late';
        return {
          executionId: request.executionId,
          state,
          answered,
          statusCode: answered ? 201 : 0,
          contentType: answered ? 'text/plain' : '',
          body: answered ? 'late body' : '',
          answeredAfterTimeout: answered,
          outcome: InvokeOutcome.SYNC_TIMEOUT,
        };
      },
    });
  });
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
  });
  facade = await createFacade({
    config,
    webhookClient: createClient(WebhookService, transport),
    logger: createFacadeLogger('error'),
    metrics,
  }).listen();
  base = `http://127.0.0.1:${facade.port}`;
});
test.after.always(async () => {
  await facade?.close();
});

const get = (path: string, auth = AUTH) => fetch(`${base}${path}`, { headers: { authorization: auth } });

test('the parameter literal: one executionId in single quotes, a quote inside doubled', (t) => {
  t.is(parseExecutionIdParameter("executionId='orders:0b4f'"), 'orders:0b4f');
  t.is(parseExecutionIdParameter("executionId='it''s:key-1'"), "it's:key-1");
  for (const bad of ['executionId=orders:1', "id='orders:1'", "executionId='a'b'", "executionId='x',other='y'", ''])
    t.throws(() => parseExecutionIdParameter(bad), undefined, bad);
});

test('wait: absent is 0, whole seconds up to 60, given once', (t) => {
  t.is(parseWait(undefined), 0);
  t.is(parseWait('0'), 0);
  t.is(parseWait('60'), 60);
  for (const bad of ['61', '-1', '1.5', 'abc', '', '007']) t.throws(() => parseWait(bad), undefined, bad);
  t.throws(() => parseWait(['1', '2']));
});

test.serial('what reaches the engine: the decoded id, the wait, the company and the caller', async (t) => {
  const id = encodeURIComponent("'late/it''s:0b4f'");
  const response = await get(`/bc/odatav4/FLOWWEBHOOK_ANSWER(executionId=${id})?company=Contoso%20%26%20Co&wait=7`);
  t.is(response.status, 200);
  const request = calls.at(-1)!;
  t.is(request.executionId, "late/it's:0b4f");
  t.is(request.waitSeconds, 7);
  t.is(request.company, 'Contoso & Co');
  t.is(request.caller?.identity.case, 'basic');
  t.is((request.caller!.identity.value as { userName: string }).userName, 'user');
  t.is(JSON.parse(JSON.parse(await response.text()).value).body, 'late body');
  t.is(response.headers.get('x-flowhook-answer-source'), 'late-respond-step');
  t.is(response.headers.get('x-flowhook-execution-state'), 'completed');
});

test.serial(
  'running → 202, failed → 500, unknown → 404, no credentials → 401 without reaching the engine',
  async (t) => {
    const running = await get("/BC/ODataV4/flowWebhook_Answer(executionId='running:1')?company=A");
    t.is(running.status, 202);
    t.is(running.headers.get('retry-after'), '1');
    const failed = await get("/BC/ODataV4/flowWebhook_Answer(executionId='failed:1')?company=A");
    t.is(failed.status, 500);
    t.deepEqual(JSON.parse(await failed.text()), {
      error: { code: 'InternalServerError', message: 'The flow failed before it responded (execution failed:1)' },
    });
    const unknown = await get("/BC/ODataV4/flowWebhook_Answer(executionId='unknown:1')?company=A");
    t.is(unknown.status, 404);
    t.is(JSON.parse(await unknown.text()).error.code, 'NotFound');
    const before = calls.length;
    t.is((await fetch(`${base}/BC/ODataV4/flowWebhook_Answer(executionId='late:1')?company=A`)).status, 401);
    t.is((await get("/XX/ODataV4/flowWebhook_Answer(executionId='late:1')?company=A")).status, 404);
    t.is(calls.length, before);
  },
);

test.serial('metrics count the route under one label, whatever execution id the path names', async (t) => {
  await get("/BC/ODataV4/flowWebhook_Answer(executionId='late:some-unique-id')?company=A");
  // What the facade's metrics port serves (the public port answers /metrics only with the token).
  const text = await metrics.registry.text();
  t.regex(text, /flowhook_facade_http_requests_total\{route="answer",status="200"\} [1-9]/);
  t.notRegex(text, /some-unique-id/);
});
