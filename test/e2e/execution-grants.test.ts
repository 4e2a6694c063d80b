// Execution grants end to end (issue 25, point 5): a company's connection
// secrets, egress list and callback URLs go only to a call that carries the
// grant of an execution that still runs. A records account created for the
// company feeds its tables and gets no connection; a grant read from a closed
// execution's history opens nothing — not ResolveOutbound, not RecordService,
// not RegisterCallbackKey — also when the execution id runs again as another
// run; g1 grants of executions started before this release work while those
// run, and not after.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { WorkflowHandle } from '@temporalio/client';
import { CallbackService } from '../../proto/gen/flowhook/engine/v1/callback_service_pb.js';
import {
  ConnectionAdminService,
  ConnectionSettingsSchema,
  ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { OutboundService } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { hmacOf, loadDeploymentKey } from '../../engine/domain/callers/deployment-keys.ts';
import { RUN_MARK_MEMO } from '../../engine/domain/executions/execution-grants.ts';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput } from '../../flow/index.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

const API_KEY = `key-${randomBytes(18).toString('base64url')}`;
const QUICK = 'grants.quick';
const HOLD = 'grants.hold';
const ANSWER_THEN_HOLD = 'grants.answer-then-hold';
const HOLD_STEP = { sleep: { description: 'Hold', duration: '1h' } };
let stack: TestStack;
let tenant: Tenant;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Granted Co');
  const connections = createClient(
    ConnectionAdminService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  );
  await connections.setConnection({
    company: tenant.company,
    name: 'erp',
    settings: create(ConnectionSettingsSchema, {
      type: ConnectionType.API_KEY,
      baseUrl: 'http://127.0.0.1:9/erp',
      headerName: 'X-Api-Key',
    }),
    secret: API_KEY,
  });
  // Answers and ends at once, without asking the engine anything: its grant is first used after it closed.
  ({ secret: secrets[QUICK] } = await deployFlow(
    stack,
    flow(tenant.company, 'quick', { activity: QUICK, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { respond: { description: 'answer', statusCode: 200, body: 'done' } },
    ]),
  ));
  // Runs until the test terminates it.
  ({ secret: secrets[HOLD] } = await deployFlow(stack, flow(tenant.company, 'hold', { activity: HOLD }, [HOLD_STEP])));
  // Answers (so its first workflow task has completed when the caller hears back), then runs on.
  ({ secret: secrets[ANSWER_THEN_HOLD] } = await deployFlow(
    stack,
    flow(tenant.company, 'answer-then-hold', { activity: ANSWER_THEN_HOLD, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      { respond: { description: 'answer', statusCode: 200, body: 'on it' } },
      HOLD_STEP,
    ]),
  ));
});
test.after.always(async () => stack?.close());

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  };
const clientsFor = (token: string) => {
  const transport = createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(token)] });
  return {
    outbound: createClient(OutboundService, transport),
    records: createClient(RecordService, transport),
    callbacks: createClient(CallbackService, transport),
  };
};
const worker = () => clientsFor(stack.tokens.worker);

async function refusal(
  t: { throwsAsync: (p: Promise<unknown>) => Promise<unknown> },
  call: Promise<unknown>,
): Promise<ConnectError> {
  const error = (await t.throwsAsync(call)) as ConnectError;
  if (!(error instanceof ConnectError)) throw new Error(`not a ConnectError: ${String(error)}`);
  return error;
}

/** The workflow input as whoever may read the history sees it (normal flows: in clear). */
async function inputOf(executionId: string): Promise<FlowExecutionInput> {
  const history = await stack.temporal.workflow.getHandle(executionId).fetchHistory();
  const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
  return JSON.parse(Buffer.from(payload.data!).toString('utf8')) as FlowExecutionInput;
}

async function start(
  activity: string,
  payload: object,
): Promise<{ executionId: string; input: FlowExecutionInput; handle: WorkflowHandle }> {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity]!,
    auth: tenant.auth,
    payloadText: JSON.stringify(payload),
  });
  if (answer.status !== 200 || !answer.executionId) throw new Error(`call failed: ${answer.status} ${answer.text}`);
  return {
    executionId: answer.executionId,
    input: await inputOf(answer.executionId),
    handle: stack.temporal.workflow.getHandle(answer.executionId),
  };
}

/** A finished execution: its grant, read from its history after it closed. */
async function closedExecution(): Promise<{ executionId: string; input: FlowExecutionInput }> {
  const { executionId, input, handle } = await start(QUICK, {});
  await handle.result();
  return { executionId, input };
}

const resolve = (input: FlowExecutionInput, executionId: string, grant = input.executionGrant ?? '') =>
  worker().outbound.resolveOutbound({ company: tenant.company, connection: 'erp', executionId, executionGrant: grant });

test('a records account created for the company feeds its tables, but gets no connection secret and no egress list', async (t) => {
  const { token } = await stack.admin.createServiceAccount({
    name: 'granted-feeder',
    scope: 'records',
    companies: [tenant.company],
  });
  const feeder = clientsFor(token);
  const written = await feeder.records.upsertRecord({
    scope: { company: tenant.company, table: 'prices', key: 'p-1', idempotencyKey: 'feed-1' },
    data: { eur: 10 },
  });
  t.is(written.record?.key, 'p-1', 'what the handbook promises it');

  for (const [name, clients] of [
    ['company-bound', feeder],
    ['all companies', clientsFor(stack.tokens.records)],
  ] as const) {
    const denied = await refusal(
      t,
      clients.outbound.resolveOutbound({ company: tenant.company, connection: 'erp', executionId: 'grants.quick:any' }),
    );
    t.is(denied.code, Code.PermissionDenied, name);
    t.regex(
      denied.rawMessage,
      /connection secrets, egress lists and callback URLs are handed out only to a worker's account for a running execution/,
      name,
    );
    t.regex(
      denied.rawMessage,
      /to read and write their records \(RecordService\) and nothing else; workers use a records account created without --company/,
      name,
    );
    t.false(denied.rawMessage.includes(API_KEY));
    const egress = await refusal(t, clients.outbound.resolveOutbound({ company: tenant.company }));
    t.is(egress.code, Code.PermissionDenied, `${name}: no egress list either`);
  }
  // Not even with the grant of a running execution, read from its history.
  const { executionId, input, handle } = await start(HOLD, {});
  const withGrant = await refusal(
    t,
    feeder.outbound.resolveOutbound({
      company: tenant.company,
      connection: 'erp',
      executionId,
      executionGrant: input.executionGrant!,
    }),
  );
  t.is(withGrant.code, Code.PermissionDenied);
  t.false(withGrant.rawMessage.includes(API_KEY));
  t.is((await resolve(input, executionId)).connection?.secret, API_KEY, "the worker's account gets it");
  await handle.terminate('test over');
});

test("a running execution's grant resolves the connection; the same grant is refused for another company", async (t) => {
  const { executionId, input, handle } = await start(HOLD, {});
  t.regex(input.executionGrant ?? '', /^g2\./);
  const resolved = await resolve(input, executionId);
  t.is(resolved.connection?.secret, API_KEY);
  t.truthy(resolved.egress);
  const scope = {
    company: tenant.company,
    table: 'seen',
    key: 'running',
    executionId,
    executionGrant: input.executionGrant!,
    idempotencyKey: `${executionId}/steps[9]`,
  };
  t.is((await worker().records.upsertRecord({ scope, data: { n: 1 } })).record?.key, 'running');
  const stolen = await refusal(
    t,
    worker().outbound.resolveOutbound({
      company: 'Other Co',
      connection: 'erp',
      executionId,
      executionGrant: input.executionGrant!,
    }),
  );
  t.is(stolen.code, Code.PermissionDenied);
  t.regex(stolen.rawMessage, /grant does not match/);
  await handle.terminate('test over');
});

test("a closed execution's grant, read from its history, opens nothing: no connection, no records, no callback key", async (t) => {
  const { executionId, input } = await closedExecution();
  const grant = input.executionGrant!;
  const outbound = await refusal(t, resolve(input, executionId));
  t.is(outbound.code, Code.PermissionDenied);
  t.is(
    outbound.rawMessage,
    `execution "${executionId}" no longer runs the run this grant was made for: a grant ends with its run`,
  );
  t.false(outbound.rawMessage.includes(API_KEY));
  const withUrls = await refusal(
    t,
    worker().outbound.resolveOutbound({
      company: tenant.company,
      executionId,
      executionGrant: grant,
      callbackSteps: ['wait'],
    }),
  );
  t.is(withUrls.code, Code.PermissionDenied, 'no callback URL is minted for it');

  const scope = {
    company: tenant.company,
    table: 'seen',
    key: 'closed',
    executionId,
    executionGrant: grant,
    idempotencyKey: `${executionId}/x`,
  };
  const read = await refusal(t, worker().records.getRecord({ scope }));
  t.is(read.code, Code.PermissionDenied);
  const write = await refusal(t, worker().records.upsertRecord({ scope, data: { forged: true } }));
  t.is(write.code, Code.PermissionDenied);
  // Not even with a company-bound records token: a call that brings a grant is judged by it.
  const { token } = await stack.admin.createServiceAccount({
    name: 'granted-feeder-2',
    scope: 'records',
    companies: [tenant.company],
  });
  t.is(
    (await refusal(t, clientsFor(token).records.upsertRecord({ scope, data: { forged: true } }))).code,
    Code.PermissionDenied,
  );
  const absent = await refusal(
    t,
    worker().records.getRecord({ scope: { company: tenant.company, table: 'seen', key: 'closed' } }),
  );
  t.is(absent.code, Code.PermissionDenied, 'the worker token without a grant gets nothing either');

  const key = await refusal(
    t,
    worker().callbacks.registerCallbackKey({
      company: tenant.company,
      activity: QUICK,
      executionId,
      executionGrant: grant,
      step: 'wait',
      key: 'order-1',
      timeoutMs: 60_000n,
    }),
  );
  t.is(key.code, Code.PermissionDenied);
});

test('the execution id running again as another run does not bring an old grant back', async (t) => {
  const { executionId, input } = await closedExecution();
  // What a keyed call made again after Temporal's retention does (the engine starts the id anew, with
  // a new grant and run mark), or anyone who may start workflows with the old input: a run that is not
  // the one the grant was made for.
  const again = await stack.temporal.workflow.start(FLOW_WORKFLOW_TYPE, {
    taskQueue: stack.taskQueue,
    workflowId: executionId,
    args: [{ ...input, steps: [HOLD_STEP], trigger: { ...input.trigger, responseMode: 'INSTANT_RETURN' } }],
    memo: { [RUN_MARK_MEMO]: randomBytes(16).toString('base64url') },
  });
  t.is((await again.describe()).status.name, 'RUNNING');
  const refused = await refusal(t, resolve(input, executionId));
  t.is(refused.code, Code.PermissionDenied);
  t.regex(refused.rawMessage, /no longer runs the run this grant was made for/);
  await again.terminate('test over');
});

test('a g1 grant of an execution started before run marks works while it runs, and not once it closed', async (t) => {
  // What an execution started by the previous release carries: a g1 grant, and no run mark in its memo.
  const grantKey = await loadDeploymentKey(stack.engine.orm.em.fork(), 'execution-grant');
  const { input: template } = await closedExecution();
  const startLegacy = async (steps: FlowExecutionInput['steps']) => {
    const executionId = `${QUICK}:${randomUUID()}`;
    const grant = `g1.${hmacOf(grantKey, ['g1', executionId, tenant.company])}`;
    const input: FlowExecutionInput = {
      ...template,
      steps,
      trigger: { ...template.trigger, responseMode: 'INSTANT_RETURN' },
      executionGrant: grant,
    };
    const handle = await stack.temporal.workflow.start(FLOW_WORKFLOW_TYPE, {
      taskQueue: stack.taskQueue,
      workflowId: executionId,
      args: [input],
    });
    return { executionId, input, handle };
  };

  const running = await startLegacy([HOLD_STEP]);
  t.is((await resolve(running.input, running.executionId)).connection?.secret, API_KEY);
  const scope = {
    company: tenant.company,
    table: 'seen',
    key: 'legacy',
    executionId: running.executionId,
    executionGrant: running.input.executionGrant!,
    idempotencyKey: `${running.executionId}/steps[9]`,
  };
  t.is((await worker().records.upsertRecord({ scope, data: { n: 1 } })).record?.key, 'legacy');
  await running.handle.terminate('test over');

  const finished = await startLegacy([{ set: { description: 'Nothing to do', variables: { done: true } } }]);
  await finished.handle.result();
  const refused = await refusal(t, resolve(finished.input, finished.executionId));
  t.is(refused.code, Code.PermissionDenied);
  t.regex(refused.rawMessage, /no longer runs/);
});

test('a Temporal reset keeps the memo, and the execution keeps its grant', async (t) => {
  const { executionId, input, handle } = await start(ANSWER_THEN_HOLD, {});
  const history = await handle.fetchHistory();
  const completed = history.events!.find((event) => event.workflowTaskCompletedEventAttributes)!;
  const { runId } = await handle.describe();
  const reset = await stack.temporal.workflowService.resetWorkflowExecution({
    namespace: stack.temporal.options.namespace,
    workflowExecution: { workflowId: executionId, runId },
    workflowTaskFinishEventId: completed.eventId,
    reason: 'operator reset in a test',
    requestId: randomUUID(),
  });
  t.not(reset.runId, runId);
  const current = await stack.temporal.workflow.getHandle(executionId).describe();
  t.is(current.runId, reset.runId);
  t.is(current.status.name, 'RUNNING');
  t.is((await resolve(input, executionId)).connection?.secret, API_KEY);
  await stack.temporal.workflow.getHandle(executionId).terminate('test over');
});
