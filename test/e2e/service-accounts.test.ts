// Service accounts end to end (issue 12): every service refuses a token of
// another scope on every protocol, naming the scope it needs; an internal
// service calls Invoke as itself; invoke accounts are bound to companies;
// the worker's records token works only with the grant of an execution of
// that company — a workflow input forged for another company is refused;
// and the CLI manages the accounts.
import test, { type ExecutionContext } from 'ava';
import { Code, ConnectError, createClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { WorkflowFailedError } from '@temporalio/client';
import { HookSecretAdminService } from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { OutboundService } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { ENGINE_SERVICES } from '../../engine/server.ts';
import { ensureServiceAccount } from '../../engine/domain/callers/ensure-service-account.ts';
import { scopeOfService } from '../../engine/edges/rpc/service-account-gate.ts';
import { FLOW_CALLER_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput } from '../../flow/index.ts';
import { cliAgainst } from '../support/cli-runner.ts';
import { recordClient } from '../support/record-client.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let alpha: Tenant;
let beta: Tenant;
const secrets: Record<string, string> = {};
const ACTIVITY = 'accounts.note';
/** Notes the call, answers, and runs on (a grant works only while its execution runs). */
const HOLDING = 'accounts.hold';

test.before(async () => {
  stack = await startStack();
  alpha = await createTenant(stack, 'Alpha Co');
  beta = await createTenant(stack, 'Beta Co');
  for (const tenant of [alpha, beta]) {
    ({ secret: secrets[tenant.company] } = await deployFlow(
      stack,
      flow(tenant.company, 'note', { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
        {
          record: {
            description: 'Note the call',
            table: 'seen',
            key: '${Trigger.Payload.key}',
            upsert: { by: '${Trigger.Payload.key}' },
          },
        },
        { respond: { description: 'answer', statusCode: 200, body: 'noted' } },
      ]),
    ));
  }
  ({ secret: secrets[HOLDING] } = await deployFlow(
    stack,
    flow(alpha.company, 'hold', { activity: HOLDING, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
      {
        record: {
          description: 'Note the call',
          table: 'seen',
          key: '${Trigger.Payload.key}',
          upsert: { by: '${Trigger.Payload.key}' },
        },
      },
      { respond: { description: 'answer', statusCode: 200, body: 'noted' } },
      { sleep: { description: 'Run on', duration: '1h' } },
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

const PROTOCOLS: Record<string, (token: string) => Transport> = {
  grpc: (token) => createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(token)] }),
  connect: (token) =>
    createConnectTransport({ baseUrl: stack.engineUrl, httpVersion: '2', interceptors: [bearer(token)] }),
  'grpc-web': (token) =>
    createGrpcWebTransport({ baseUrl: stack.engineUrl, httpVersion: '2', interceptors: [bearer(token)] }),
};

/** Calls the service's first unary method with an empty request: enough to pass or meet the gate. */
async function callAny(service: DescService, transport: Transport): Promise<unknown> {
  const method = service.methods.find((candidate) => candidate.methodKind === 'unary')!;
  const client = createClient(service, transport) as unknown as Record<string, (request: object) => Promise<unknown>>;
  return client[method.localName]!({});
}

const gateRefusal = (needed: string) => `needs a service account of scope "${needed}"`;

for (const [protocol, transport] of Object.entries(PROTOCOLS)) {
  test(`${protocol}: every service admits its own scope and refuses the others, naming the scope it needs`, async (t) => {
    const tokens = { invoke: stack.tokens.internal, records: stack.tokens.worker, admin: stack.tokens.admin };
    for (const service of ENGINE_SERVICES) {
      const needed = scopeOfService(service.typeName);
      for (const [scope, token] of Object.entries(tokens)) {
        const why = `${service.typeName} with a ${scope} token`;
        const error = await callAny(service, transport(token)).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        if (scope === needed) {
          // Past the gate: the empty request may still be refused by the service, never by scope.
          t.false(
            error instanceof ConnectError &&
              (error.code === Code.Unauthenticated || error.rawMessage.includes('needs a service account')),
            `${why}: ${String(error)}`,
          );
        } else {
          t.true(error instanceof ConnectError, why);
          t.is((error as ConnectError).code, Code.PermissionDenied, why);
          t.true(
            (error as ConnectError).rawMessage.includes(gateRefusal(needed)),
            `${why}: ${(error as ConnectError).rawMessage}`,
          );
        }
      }
    }
  });
}

test('hook secrets are admin business: invoke and records tokens can neither set nor list them', async (t) => {
  t.true(ENGINE_SERVICES.includes(HookSecretAdminService), 'served, and listed by reflection and health');
  t.is(scopeOfService(HookSecretAdminService.typeName), 'admin');
  const request = { company: alpha.company, activity: ACTIVITY, secret: `whsec_${'s'.repeat(32)}` };
  for (const token of [stack.tokens.internal, stack.tokens.worker]) {
    const hookSecrets = createClient(HookSecretAdminService, PROTOCOLS.grpc!(token));
    const set = await t.throwsAsync(hookSecrets.setHookSecret(request));
    t.is((set as ConnectError).code, Code.PermissionDenied);
    t.is(((await t.throwsAsync(hookSecrets.listHookSecrets({}))) as ConnectError).code, Code.PermissionDenied);
  }
  const admin = createClient(HookSecretAdminService, PROTOCOLS.grpc!(stack.tokens.admin));
  t.deepEqual(
    (await admin.listHookSecrets({ company: alpha.company })).secrets,
    [],
    'the refused calls stored nothing',
  );
  await admin.setHookSecret(request);
  t.deepEqual(
    (await admin.listHookSecrets({ company: alpha.company })).secrets.map((secret) => secret.activity),
    [ACTIVITY],
  );
  await admin.deleteHookSecret({ company: alpha.company, activity: ACTIVITY });
});

test('an internal service invokes with its own account and is recorded as the caller', async (t) => {
  const webhook = createClient(
    WebhookService,
    createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(stack.tokens.internal)] }),
  );
  const answer = await webhook.invoke({
    company: alpha.company,
    activity: ACTIVITY,
    secret: secrets[alpha.company]!,
    payloadJson: '{"key":"internal-1"}',
  });
  t.is(answer.statusCode, 200);
  t.is(answer.body, 'noted');
  const described = await stack.temporal.workflow.getHandle(answer.executionId).describe();
  t.deepEqual(described.typedSearchAttributes.get(FLOW_CALLER_KEY), 'account:test-internal');

  // Claiming an end user is the facade's privilege alone.
  const claiming = await t.throwsAsync(
    webhook.invoke({
      company: alpha.company,
      activity: ACTIVITY,
      secret: secrets[alpha.company]!,
      payloadJson: '{"key":"internal-2"}',
      caller: { identity: { case: 'basic', value: { userName: alpha.userName, accessKey: alpha.accessKey } } },
    }),
  );
  t.is((claiming as ConnectError).code, Code.PermissionDenied);
  t.regex((claiming as ConnectError).rawMessage, /only the facade's service account may pass on a caller/);
  // The secret is still checked for internal callers.
  const wrongSecret = await t.throwsAsync(
    webhook.invoke({ company: alpha.company, activity: ACTIVITY, secret: 'x'.repeat(32), payloadJson: '{}' }),
  );
  t.is((wrongSecret as ConnectError).code, Code.Unauthenticated);
});

test('an invoke account acts only for the companies it was created for', async (t) => {
  const { token } = await stack.admin.createServiceAccount({
    name: 'alpha-only',
    scope: 'invoke',
    companies: [alpha.company],
  });
  const webhook = createClient(
    WebhookService,
    createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(token)] }),
  );
  t.is(
    (
      await webhook.invoke({
        company: alpha.company,
        activity: ACTIVITY,
        secret: secrets[alpha.company]!,
        payloadJson: '{"key":"alpha-only"}',
      })
    ).statusCode,
    200,
  );
  const other = await t.throwsAsync(
    webhook.invoke({
      company: beta.company,
      activity: ACTIVITY,
      secret: secrets[beta.company]!,
      payloadJson: '{"key":"alpha-only"}',
    }),
  );
  t.is((other as ConnectError).code, Code.PermissionDenied);
  t.regex((other as ConnectError).rawMessage, /may not call flows of company "Beta Co"/);
  // Secure by default: an invoke account must name its companies (or say all).
  const unbound = await t.throwsAsync(stack.admin.createServiceAccount({ name: 'unbound', scope: 'invoke' }));
  t.regex((unbound as ConnectError).rawMessage, /needs the companies it may call for/);
});

/** The workflow input an execution started with, as the worker saw it. */
async function inputOf(executionId: string): Promise<FlowExecutionInput> {
  const handle = stack.temporal.workflow.getHandle(executionId);
  const history = await handle.fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const payload = started.input!.payloads![0]!;
  return JSON.parse(Buffer.from(payload.data!).toString('utf8')) as FlowExecutionInput;
}

test("the worker's records token needs the grant of a running execution of that company", async (t) => {
  const answer = await callWebhook(stack, {
    company: alpha.company,
    activity: HOLDING,
    secret: secrets[HOLDING]!,
    auth: alpha.auth,
    payloadText: JSON.stringify({ key: 'granted' }),
  });
  t.is(answer.status, 200);
  const executionId = answer.headers.get('x-flowhook-execution-id')!;
  const input = await inputOf(executionId);
  t.regex(input.executionGrant ?? '', /^g2\./);

  const records = createClient(
    RecordService,
    createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(stack.tokens.worker)] }),
  );
  const scope = (company: string, grant: string) => ({
    company,
    table: 'seen',
    key: 'granted',
    executionId,
    executionGrant: grant,
  });
  t.is((await records.getRecord({ scope: scope(alpha.company, input.executionGrant!) })).record?.key, 'granted');
  const forged = await t.throwsAsync(records.getRecord({ scope: scope(beta.company, input.executionGrant!) }));
  t.is((forged as ConnectError).code, Code.PermissionDenied);
  t.regex((forged as ConnectError).rawMessage, /grant does not match/);
  const bare = await t.throwsAsync(records.getRecord({ scope: scope(alpha.company, '') }));
  t.is((bare as ConnectError).code, Code.PermissionDenied);
  t.regex((bare as ConnectError).rawMessage, /works only for executions it is handed/);
  // Connections and egress lists are bound the same way.
  const outbound = createClient(
    OutboundService,
    createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(stack.tokens.worker)] }),
  );
  t.truthy(
    (await outbound.resolveOutbound({ company: alpha.company, executionId, executionGrant: input.executionGrant! }))
      .egress,
  );
  const stolen = await t.throwsAsync(
    outbound.resolveOutbound({ company: beta.company, executionId, executionGrant: input.executionGrant! }),
  );
  t.is((stolen as ConnectError).code, Code.PermissionDenied);
  await stack.temporal.workflow.getHandle(executionId).terminate('test over');
});

test('a workflow input forged for another company is refused by RecordService and writes nothing', async (t) => {
  const answer = await callWebhook(stack, {
    company: alpha.company,
    activity: ACTIVITY,
    secret: secrets[alpha.company]!,
    auth: alpha.auth,
    payloadText: JSON.stringify({ key: 'forgery' }),
  });
  const executionId = answer.headers.get('x-flowhook-execution-id')!;
  const input = await inputOf(executionId);
  // Whoever can start workflows on the task queue copies a real input and points it at Beta Co,
  // even under the same (closed) execution id.
  const forgedInput: FlowExecutionInput = {
    ...input,
    company: beta.company,
    trigger: { ...input.trigger, responseMode: 'INSTANT_RETURN' },
  };
  const handle = await stack.temporal.workflow.start(FLOW_WORKFLOW_TYPE, {
    taskQueue: stack.taskQueue,
    workflowId: executionId,
    args: [forgedInput],
  });
  const failure = await t.throwsAsync(handle.result());
  t.true(failure instanceof WorkflowFailedError);
  t.regex(String((failure as WorkflowFailedError).cause?.message), /grant does not match execution/);
  const betaRecord = await t.throwsAsync(
    recordClient(stack).getRecord({ scope: { company: beta.company, table: 'seen', key: 'forgery' } }),
  );
  t.is((betaRecord as ConnectError).code, Code.NotFound);
});

async function invokeWith(token: string, key: string): Promise<Code | 'ok'> {
  const webhook = createClient(
    WebhookService,
    createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(token)] }),
  );
  try {
    await webhook.invoke({
      company: alpha.company,
      activity: ACTIVITY,
      secret: secrets[alpha.company]!,
      payloadJson: JSON.stringify({ key }),
    });
    return 'ok';
  } catch (error) {
    return (error as ConnectError).code;
  }
}

function tokenIn(t: ExecutionContext, output: string): string {
  const token = /\n\s+(fhsa_[A-Za-z0-9_-]{43})\n/.exec(output)?.[1];
  t.truthy(token, output);
  return token!;
}

test('the CLI creates, lists, rotates, disables, enables and deletes service accounts', async (t) => {
  const flowhook = cliAgainst(stack);
  const created = await flowhook(
    'service-account',
    'create',
    'erp-bridge',
    '--scope',
    'invoke',
    '--company',
    alpha.company,
  );
  t.is(created.code, 0, created.err);
  t.regex(created.out, /Created service account "erp-bridge" \(scope invoke, companies: Alpha Co\)/);
  const token = tokenIn(t, created.out);
  t.is(await invokeWith(token, 'cli-1'), 'ok');

  const listed = await flowhook('service-account', 'list');
  t.regex(listed.out, /erp-bridge\s+invoke\s+Alpha Co\s+no\s+enabled\s+fhsa_/);
  t.false(listed.out.includes(token));

  const rotated = await flowhook('service-account', 'rotate', 'erp-bridge');
  const newToken = tokenIn(t, rotated.out);
  t.is(await invokeWith(token, 'cli-2'), Code.Unauthenticated);
  t.is(await invokeWith(newToken, 'cli-3'), 'ok');

  await flowhook('service-account', 'disable', 'erp-bridge');
  t.is(await invokeWith(newToken, 'cli-4'), Code.Unauthenticated);
  await flowhook('service-account', 'enable', 'erp-bridge');
  t.is(await invokeWith(newToken, 'cli-5'), 'ok');

  const unconfirmed = await flowhook('service-account', 'delete', 'erp-bridge');
  t.not(unconfirmed.code, 0);
  t.regex(unconfirmed.err, /--yes/);
  t.is(await invokeWith(newToken, 'cli-6'), 'ok');
  t.is((await flowhook('service-account', 'delete', 'erp-bridge', '--yes')).code, 0);
  t.is(await invokeWith(newToken, 'cli-7'), Code.Unauthenticated);

  const badScope = await flowhook('service-account', 'create', 'x', '--scope', 'root');
  t.not(badScope.code, 0);
  t.regex(badScope.err, /scope must be one of invoke, records, admin/);
});

test("a records account created for a company reaches that company's records only", async (t) => {
  const { token } = await stack.admin.createServiceAccount({
    name: 'alpha-feeder',
    scope: 'records',
    companies: [alpha.company],
  });
  const records = createClient(
    RecordService,
    createGrpcTransport({ baseUrl: stack.engineUrl, interceptors: [bearer(token)] }),
  );
  const written = await records.upsertRecord({
    scope: { company: alpha.company, table: 'prices', key: 'p-1', idempotencyKey: 'feed-1' },
    data: { eur: 10 },
  });
  t.is(written.record?.key, 'p-1');
  const other = await t.throwsAsync(
    records.getRecord({ scope: { company: beta.company, table: 'prices', key: 'p-1' } }),
  );
  t.is((other as ConnectError).code, Code.PermissionDenied);
  t.regex((other as ConnectError).rawMessage, /may not touch the records of company "Beta Co"/);
});

test('flowhook start keeps an account whose token it holds, and replaces a token it no longer matches', async (t) => {
  const spec = { name: 'local-process', scope: 'invoke', companies: [], allCompanies: true, forwardsCallers: false };
  const fork = () => stack.engine.orm.em.fork();
  const first = await ensureServiceAccount(fork(), stack.engine.changes, spec, undefined);
  t.regex(first.token, /^fhsa_/);
  t.is((await ensureServiceAccount(fork(), stack.engine.changes, spec, first.token)).token, first.token);
  // A token file from an earlier release (or a rotation made elsewhere) no longer matches: a new token.
  const replaced = await ensureServiceAccount(fork(), stack.engine.changes, spec, 'an-old-shared-token-from-a-file');
  t.not(replaced.token, first.token);
  t.is(await invokeWith(first.token, 'ensure-1'), Code.Unauthenticated);
  t.is(await invokeWith(replaced.token, 'ensure-2'), 'ok');
});
