// The delivery log end to end — real PostgreSQL, Temporal, engine, worker and
// facade over HTTP, and the real `flowhook delivery` commands: a call refused
// for a wrong secret is listed with its reason and without the secret (nor the
// caller's access key) anywhere in the row or the CLI's output; an accepted
// call keeps its payload sealed and links its execution; a replay runs the
// stored call on the version published after it; a doNotLogPayload flow keeps
// no body and replays only with an admin's reveal.
import test from 'ava';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { DeliveryLogService, DeliveryService } from '../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { Code, ConnectError } from '@connectrpc/connect';
import { runCapturing } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { recordClient } from '../support/record-client.ts';
import { signStandardV1, standardWebhooksSecret } from '../support/provider-signers.ts';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let secret: string;
let hiddenSecret: string;

const HOOK_SECRET = standardWebhooksSecret();
const PAYLOAD = '{"order":  12345678901234567890, "note": "a  b"}';
const noted = (version: string) => [
  { record: { description: 'Note the version', table: 'seen', key: '${Execution.Id}', insert: { version } } },
];

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Delivery Co');
  secret = (await deployFlow(stack, flow(tenant.company, 'orders', { activity: 'log.orders' }, noted('1')))).secret;
  await deployFlow(
    stack,
    flow(
      tenant.company,
      'provider',
      { activity: 'log.provider', direct: { verify: { standardWebhooks: {} } } },
      noted('1'),
    ),
  );
  await stack.admin.setHookSecret({ company: tenant.company, activity: 'log.provider', secret: HOOK_SECRET });
  hiddenSecret = (
    await deployFlow(
      stack,
      flow(tenant.company, 'hidden', { activity: 'log.hidden', doNotLogPayload: true }, noted('hidden')),
    )
  ).secret;
});
test.after.always(async () => {
  await stack?.close();
});

function adminClient<S extends DescService>(service: S, token = stack.adminToken) {
  return createClient(
    service,
    createConnectTransport({
      baseUrl: stack.engineUrl,
      httpVersion: '2',
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${token}`);
          return next(request);
        },
      ],
    }),
  );
}

const cli = (...args: string[]) => runCapturing(args, { deliveries: { client: () => adminClient(DeliveryService) } });

/** Every column of the rows, as text: what a database dump would show. */
async function rowsText(where: string, params: unknown[]): Promise<string> {
  const rows = (await stack.engine.orm.em
    .getConnection()
    .execute(
      `select row_to_json(d)::text as row, encode(body, 'escape') as body from delivery d where ${where}`,
      params,
    )) as {
    row: string;
    body: string | null;
  }[];
  return rows.map((r) => `${r.row}\n${r.body ?? ''}`).join('\n');
}

async function listed(...filters: string[]) {
  const run = await cli('delivery', 'list', '--company', tenant.company, ...filters, '--json');
  if (run.code !== 0) throw new Error(`delivery list failed: ${run.err}`);
  return { run, deliveries: (JSON.parse(run.out) as { deliveries?: Record<string, unknown>[] }).deliveries ?? [] };
}

test.serial('a call refused for a wrong secret is listed with its reason, and the secret is nowhere', async (t) => {
  const wrong = `wrong-${secret.slice(0, 6)}-${Date.now()}`;
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'log.orders',
    secret: wrong,
    auth: tenant.auth,
    payloadText: PAYLOAD,
    headers: { 'x-request-id': 'refused-call-1', 'x-partner-token': 'tok-sensitive-123' },
  });
  t.is(answer.status, 401);
  const { run, deliveries } = await eventually(() => listed('--reason', 'secret_mismatch'), {
    until: ({ deliveries }) => deliveries.length > 0,
    what: 'the refused call in delivery list',
  });
  const row = deliveries[0]!;
  t.like(row, {
    route: 'endpoint',
    company: tenant.company,
    activity: 'log.orders',
    caller: `user:${tenant.userName}`,
    outcome: 'refused',
    reason: 'secret_mismatch',
    status: 401,
    requestId: 'refused-call-1',
  });
  t.falsy(row.hasBody);
  const shown = await cli('delivery', 'show', row.id as string, '--json');
  t.is(shown.code, 0, shown.err);
  const headers = (JSON.parse(shown.out) as { headers: { name: string; value: string }[] }).headers;
  t.is(headers.find((h) => h.name === 'authorization')?.value, '[redacted]');
  t.is(headers.find((h) => h.name === 'x-partner-token')?.value, '[redacted]');
  t.is(headers.find((h) => h.name === 'content-type')?.value, 'application/json');
  const human = await cli('delivery', 'show', row.id as string);
  t.regex(human.out, /secret_mismatch/);
  const stored = await rowsText('request_id = ?', ['refused-call-1']);
  for (const text of [stored, run.out, shown.out, human.out]) {
    t.false(text.includes(wrong), 'the wrong secret');
    t.false(text.includes(secret), "the flow's secret");
    t.false(text.includes(tenant.accessKey), "the caller's access key");
    t.false(text.includes('tok-sensitive-123'), 'a token-like header');
    t.false(text.includes('12345678901234567890'), 'the payload of a refused call');
  }
});

test.serial('an accepted call links its execution and keeps its payload sealed', async (t) => {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'log.orders',
    secret,
    auth: tenant.auth,
    payloadText: PAYLOAD,
    headers: { 'x-request-id': 'accepted-call-1' },
  });
  t.is(answer.status, 200);
  const { deliveries } = await eventually(() => listed('--outcome', 'accepted', '--activity', 'log.orders'), {
    until: ({ deliveries }) => deliveries.some((d) => d.requestId === 'accepted-call-1'),
    what: 'the accepted call listed',
  });
  const row = deliveries.find((d) => d.requestId === 'accepted-call-1')!;
  t.like(row, { outcome: 'accepted', status: 200, executionId: answer.executionId!, hasBody: true });
  t.truthy(row.answer);
  // Sealed at rest: neither the payload nor the secret around it is readable in the table.
  const stored = await rowsText('request_id = ?', ['accepted-call-1']);
  t.false(stored.includes('12345678901234567890'));
  t.false(stored.includes(secret));
  const shown = JSON.parse((await cli('delivery', 'show', row.id as string, '--json')).out) as { body: string };
  t.is(shown.body, PAYLOAD, 'the exact payload text, shown to an admin');
});

test.serial('replay runs the stored call on version 2 once version 2 is published', async (t) => {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'log.orders',
    secret,
    auth: tenant.auth,
    payloadText: PAYLOAD,
    headers: { 'x-request-id': 'replayed-call-1' },
  });
  t.is(answer.status, 200);
  await stack.temporal.workflow.getHandle(answer.executionId!).result();
  const seen = async (key: string) =>
    (await recordClient(stack).getRecord({ scope: { company: tenant.company, table: 'seen', key } })).record?.data as
      Record<string, unknown> | undefined;
  t.is((await seen(answer.executionId!))?.version, '1');
  const { deliveries } = await eventually(() => listed('--outcome', 'accepted'), {
    until: ({ deliveries }) => deliveries.some((d) => d.requestId === 'replayed-call-1'),
    what: 'the call listed',
  });
  const id = deliveries.find((d) => d.requestId === 'replayed-call-1')!.id as string;
  await deployFlow(stack, flow(tenant.company, 'orders', { activity: 'log.orders' }, noted('2')));

  const unconfirmed = await cli('delivery', 'replay', id);
  t.not(unconfirmed.code, 0);
  t.regex(unconfirmed.err, /--yes/);

  const replayed = await cli('delivery', 'replay', id, '--yes', '--json');
  t.is(replayed.code, 0, replayed.err);
  const result = JSON.parse(replayed.out) as { executionId: string; flowVersion: number };
  t.is(result.flowVersion, 2);
  t.not(result.executionId, answer.executionId);
  await stack.temporal.workflow.getHandle(result.executionId).result();
  t.is((await seen(result.executionId))?.version, '2', "version 2's step ran");
  const input = (await stack.temporal.workflow.getHandle(result.executionId).fetchHistory()).events?.[0]
    ?.workflowExecutionStartedEventAttributes?.input?.payloads;
  t.truthy(input?.length);
  // The replay is on record, with who asked.
  const audit = await adminClient(AuditService).listAuditEvents({ action: 'delivery.replay', limit: 10 });
  t.true(audit.events.some((e) => e.target === id));

  const dry = await cli(
    'delivery',
    'replay',
    '--company',
    tenant.company,
    '--activity',
    'log.orders',
    '--dry-run',
    '--json',
  );
  t.is(dry.code, 0, dry.err);
  t.true((JSON.parse(dry.out) as { matched: number }).matched >= 2);
});

test.serial('a doNotLogPayload flow keeps no body, and replays only with an admin reveal', async (t) => {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'log.hidden',
    secret: hiddenSecret,
    auth: tenant.auth,
    payloadText: '{"card": "4111-1111"}',
    headers: { 'x-request-id': 'hidden-call-1' },
  });
  t.is(answer.status, 200);
  // Its result is encrypted (doNotLogPayload): this client waits without decoding it.
  await closed(answer.executionId!);
  const { deliveries } = await eventually(() => listed('--activity', 'log.hidden'), {
    until: ({ deliveries }) => deliveries.some((d) => d.requestId === 'hidden-call-1'),
    what: 'the hidden call listed',
  });
  const row = deliveries.find((d) => d.requestId === 'hidden-call-1')!;
  t.falsy(row.hasBody);
  t.false((await rowsText('request_id = ?', ['hidden-call-1'])).includes('4111'));
  const shown = JSON.parse((await cli('delivery', 'show', row.id as string, '--json')).out) as {
    body?: string;
    payloadWithheld?: boolean;
  };
  t.falsy(shown.body);
  t.true(shown.payloadWithheld);

  const refused = await cli('delivery', 'replay', row.id as string, '--yes');
  t.not(refused.code, 0);
  t.regex(refused.err, /doNotLogPayload|reveal/);

  const revealed = await cli('delivery', 'replay', row.id as string, '--yes', '--reveal', '--json');
  t.is(revealed.code, 0, revealed.err);
  const { executionId } = JSON.parse(revealed.out) as { executionId: string };
  t.is(await closed(executionId), 'COMPLETED');
  const audit = await adminClient(AuditService).listAuditEvents({ action: 'execution.reveal-payload', limit: 10 });
  t.true(
    audit.events.some((e) => e.target === answer.executionId),
    'the reveal is on record',
  );
});

test.serial(
  'the provider route: a bad signature is listed as signature_mismatch, a signed delivery replays with its bytes and query',
  async (t) => {
    const url = `${stack.facadeUrl}/${INSTANCE}/hooks/${encodeURIComponent(tenant.company)}/log.provider?source=shop&token=q-secret-1`;
    const body = '{"type":  "order.created", "id": 7}';
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signStandardV1(body, standardWebhooksSecret())) },
      body,
    });
    t.is(forged.status, 401);
    const signed = await signStandardV1(body, HOOK_SECRET);
    const accepted = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-order-source': 'shop-7', ...signed },
      body,
    });
    t.is(accepted.status, 200, await accepted.text());
    const original = accepted.headers.get('x-flowhook-execution-id')!;
    const { deliveries } = await eventually(() => listed('--activity', 'log.provider'), {
      until: ({ deliveries }) => deliveries.length >= 2,
      what: 'both provider deliveries listed',
    });
    t.like(
      deliveries.find((d) => d.outcome === 'refused'),
      { route: 'provider', reason: 'signature_mismatch', status: 401 },
    );
    const row = deliveries.find((d) => d.outcome === 'accepted')!;
    t.like(row, { route: 'provider', executionId: original, hasBody: true });
    const shown = JSON.parse((await cli('delivery', 'show', row.id as string, '--json')).out) as {
      body: string;
      query: string;
      headers: { name: string; value: string }[];
    };
    t.is(shown.body, body);
    t.is(shown.query, 'source=shop&token=%5Bredacted%5D', 'a credential-like query parameter is redacted for display');
    t.is(shown.headers.find((h) => h.name === 'webhook-signature')?.value, '[redacted]');
    t.false(JSON.stringify(shown).includes(signed['webhook-signature']!));
    t.false((await rowsText('id = ?', [row.id])).includes('q-secret-1'));

    const replayed = await cli('delivery', 'replay', row.id as string, '--yes', '--json');
    t.is(replayed.code, 0, replayed.err);
    const { executionId } = JSON.parse(replayed.out) as { executionId: string };
    t.not(executionId, original);
    t.is(await closed(executionId), 'COMPLETED');
  },
);

test('only a facade reports deliveries: another invoke account, a records or an admin token cannot write the log', async (t) => {
  const forged = {
    deliveries: [
      { route: 'endpoint', company: tenant.company, outcome: 'refused', reason: 'secret_mismatch', status: 401 },
    ],
  };
  const codeOf = (error: unknown) => (error instanceof ConnectError ? error.code : undefined);
  for (const [who, token, code] of [
    ['an internal invoke account', stack.tokens.internal, Code.PermissionDenied],
    ['a records account', stack.tokens.records, Code.PermissionDenied],
    ['the admin token', stack.adminToken, Code.PermissionDenied],
  ] as const) {
    const error = await t.throwsAsync(adminClient(DeliveryLogService, token).recordDeliveries(forged));
    t.is(codeOf(error), code, who);
  }
});

async function closed(executionId: string): Promise<string> {
  const handle = stack.temporal.workflow.getHandle(executionId);
  await handle.result().catch(() => undefined);
  return (await handle.describe()).status.name;
}
