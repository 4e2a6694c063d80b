// The admin RPCs the console's flow card calls, against a real engine and
// facade: CheckFlow (every publish problem at its field, before publishing),
// ListFlowVersions and GetFlow of one version (drafts and their comparison),
// RotateSecret by flow name, and TryFlow (one call through the real endpoint,
// with a connection's credentials the page never sees).
import test from 'ava';
import { create, fromJson } from '@bufbuild/protobuf';
import {
  ConnectionSettingsSchema,
  ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowProblem_Severity, type FlowProblem } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { FlowSchema, ResponseMode, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTenant, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;

const echo = (name: string, activity: string, extra: Record<string, unknown> = {}): FlowJson =>
  flow(tenant.company, name, { activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', ...extra }, [
    {
      respond: {
        description: 'Echo the name',
        statusCode: 201,
        contentType: 'application/json',
        body: '${ {"hello": Trigger.Payload.name} }',
      },
    },
  ]);
const message = (json: FlowJson) => fromJson(FlowSchema, json as never);

test.before(async () => {
  // The Webhook Call URL must be one the engine reaches: TryFlow calls it.
  const facadePort = await findFreePort();
  stack = await startStack({
    env: { FLOWHOOK_FACADE_PORT: String(facadePort), FLOWHOOK_PUBLIC_URL: `http://127.0.0.1:${facadePort}` },
  });
  tenant = await createTenant(stack, 'Card Co');
});
test.after.always(async () => {
  await stack?.close();
});

const where = (problem: FlowProblem) => problem.segments.map((segment) => segment.kind.value);

test('CheckFlow names every publish problem at its field, without storing anything', async (t) => {
  await stack.admin.applyFlow({ flow: message(echo('holder', 'orders.created')), publish: true });
  const candidate = flow(tenant.company, 'newcomer', { activity: 'Orders.Created' }, [
    { respond: { description: 'Too early a status', statusCode: 150 } },
    { httpRequest: { description: 'Ask the ERP', url: 'https://erp.example/api', connection: 'erp' } },
  ]);
  const { problems } = await stack.admin.checkFlow({ flow: message(candidate) });
  const errors = problems.filter((problem) => problem.severity === FlowProblem_Severity.ERROR);
  const status = errors.find((problem) => problem.fieldPath === 'steps[0].respond.statusCode');
  t.truthy(status, JSON.stringify(problems.map((p) => `${p.fieldPath}: ${p.message}`)));
  t.deepEqual(where(status!), ['steps', 0, 'respond', 'statusCode']);
  t.regex(status!.message, /200\.\.599/);
  t.truthy(
    errors.find(
      (problem) =>
        problem.fieldPath === 'steps[1].httpRequest.connection' && /no connection "erp"/.test(problem.message),
    ),
  );
  const duplicate = errors.find((problem) => problem.fieldPath === 'trigger.webhook.activity');
  t.regex(duplicate?.message ?? '', /"orders\.created" is already published by flow "holder".*ignoring case/);
  t.is(
    (await stack.admin.listFlows({ company: tenant.company })).flows.some((f) => f.name === 'newcomer'),
    false,
    'nothing was stored',
  );

  const fine = await stack.admin.checkFlow({ flow: message(echo('holder', 'orders.created')) });
  t.deepEqual(
    fine.problems.filter((problem) => problem.severity === FlowProblem_Severity.ERROR),
    [],
    'the holder itself may publish its own activity again',
  );
});

test('ListFlowVersions lists drafts newest first with the published one marked; GetFlow reads any version', async (t) => {
  await stack.admin.applyFlow({ flow: message(echo('versioned', 'versions.one')), publish: true });
  await stack.admin.applyFlow({ flow: message({ ...echo('versioned', 'versions.one'), description: 'a draft' }) });
  const { versions } = await stack.admin.listFlowVersions({ company: tenant.company, name: 'versioned' });
  t.deepEqual(
    versions.map((v) => [v.version, v.published, v.description]),
    [
      [2, false, 'a draft'],
      [1, true, 'test flow versioned'],
    ],
  );
  const first = await stack.admin.getFlow({ company: tenant.company, name: 'versioned', version: 1 });
  t.is(first.definition?.description, 'test flow versioned');
  t.is((await stack.admin.getFlow({ company: tenant.company, name: 'versioned' })).definition?.description, 'a draft');
  t.is(first.flow?.responseMode, ResponseMode.WAIT_FOR_RESPONSE_STEP);
  t.truthy(first.flow?.secretRotatedAt);
  const missing = await t.throwsAsync(stack.admin.getFlow({ company: tenant.company, name: 'versioned', version: 7 }));
  t.regex(missing!.message, /has no version 7 \(it has versions 1\.\.2\)/);
});

test('RotateSecret by flow name; TryFlow calls the endpoint with a connection the page never sees, and the old secret gets 401', async (t) => {
  const applied = await stack.admin.applyFlow({ flow: message(echo('tried', 'try.me')), publish: true });
  const base = stack.env.FLOWHOOK_PUBLIC_URL!;
  await stack.admin.setConnection({
    company: tenant.company,
    name: 'me-as-caller',
    settings: create(ConnectionSettingsSchema, {
      type: ConnectionType.BASIC,
      baseUrl: base,
      username: tenant.userName,
    }),
    secret: tenant.accessKey,
  });
  const answer = await stack.admin.tryFlow({
    company: tenant.company,
    activity: 'try.me',
    secret: applied.secret,
    payloadJson: '{"name": "Ada"}',
    caller: { case: 'connection', value: 'me-as-caller' },
  });
  t.is(answer.httpStatus, 200, answer.body);
  t.is(answer.url, `${base}/BC/ODataV4/flowWebhook_Invoke?company=Card%20Co`);
  t.regex(answer.contentType, /^application\/json/);
  t.deepEqual(JSON.parse((JSON.parse(answer.body) as { value: string }).value), {
    statusCode: 201,
    contentType: 'application/json',
    body: '{"hello":"Ada"}',
  });
  t.regex(answer.executionId, /^try\.me:/);
  t.is(answer.outcome, 'responded');
  t.false(JSON.stringify(answer).includes(tenant.accessKey));

  const rotated = await stack.admin.rotateSecret({ company: tenant.company, name: 'tried' });
  t.not(rotated.secret, applied.secret);
  const typed = { case: 'basic' as const, value: { user: tenant.userName, accessKey: tenant.accessKey } };
  t.is(
    (
      await stack.admin.tryFlow({
        company: tenant.company,
        activity: 'try.me',
        secret: applied.secret,
        payloadJson: '{}',
        caller: typed,
      })
    ).httpStatus,
    401,
    'the old secret stopped working',
  );
  t.is(
    (
      await stack.admin.tryFlow({
        company: tenant.company,
        activity: 'try.me',
        secret: rotated.secret,
        payloadJson: '{}',
        caller: typed,
      })
    ).httpStatus,
    200,
  );
  t.is(
    (
      await stack.admin.tryFlow({
        company: tenant.company,
        activity: 'try.me',
        secret: rotated.secret,
        payloadJson: '{}',
      })
    ).httpStatus,
    401,
    'no caller: the endpoint asks for one',
  );
});

test("TryFlow sends a connection's credentials only where the connection allows, and only a JSON object as payload", async (t) => {
  await stack.admin.setConnection({
    company: tenant.company,
    name: 'erp-only',
    settings: create(ConnectionSettingsSchema, { type: ConnectionType.BEARER, baseUrl: 'https://erp.example/api' }),
    secret: 'a-token-for-the-erp-only',
  });
  const elsewhere = await t.throwsAsync(
    stack.admin.tryFlow({
      company: tenant.company,
      activity: 'try.me',
      secret: 'x',
      payloadJson: '{}',
      caller: { case: 'connection', value: 'erp-only' },
    }),
  );
  t.regex(elsewhere!.message, /may not send its credentials to http:\/\/127\.0\.0\.1/);
  const notObject = await t.throwsAsync(
    stack.admin.tryFlow({ company: tenant.company, activity: 'try.me', secret: 'x', payloadJson: '[1, 2]' }),
  );
  t.regex(notObject!.message, /payload: must be a JSON object/);
});
