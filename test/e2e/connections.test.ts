// Connections end to end, with engine, worker and facade as separate processes
// at debug log level: a step names a connection, the worker asks the engine for
// it at run time and signs the request; the secret appears nowhere else — not
// in Temporal history (every event, decoded), the logs, the database in clear,
// `flow show` or `execution show`. OAuth client-credentials tokens are fetched
// once and reused; a connection's credentials only go where it is pinned.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { create, fromJson, toJsonString } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { Client, Connection } from '@temporalio/client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import pg from 'pg';
import {
  ConnectionAdminService,
  ConnectionSettingsSchema,
  ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import {
  ExecutionService,
  GetExecutionResponseSchema,
} from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { GetFlowResponseSchema } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient, createAdminTransport, type AdminClient } from '../../bin/cli/admin-client.ts';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/oauth-provider.ts';
import { echo, startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { testInfrastructure } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';

const COMPANY = 'Connected';
const API_KEY = `key-${randomBytes(18).toString('base64url')}`;
const CLIENT = { clientId: 'erp-integration', clientSecret: `cs-${randomBytes(18).toString('base64url')}` };
const TLS_TOKEN = `tls-${randomBytes(18).toString('base64url')}`;
let stack: ProcessStack;
let admin: AdminClient;
let connections: ReturnType<typeof createClient<typeof ConnectionAdminService>>;
let api: RouteServer;
let idp: TestAuthorizationServer;
let temporalConnection: Connection;
let temporal: Client;
let accessKey = '';
let flows = 0;

test.before(async () => {
  api = await startRouteServer();
  api.route('/erp/orders', echo);
  api.route('/elsewhere', echo);
  api.route('/oauth/orders', echo);
  idp = await startAuthorizationServer({ clients: [CLIENT], resources: ['urn:erp'] });
  stack = await startProcessStack();
  admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN! });
  connections = createClient(
    ConnectionAdminService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN! }),
  );
  await admin.createCompany({ name: COMPANY });
  accessKey = (await admin.createUser({ name: 'conn-user', company: COMPANY })).accessKey;
  temporalConnection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  temporal = new Client({ connection: temporalConnection });
  await connections.setConnection({
    company: COMPANY,
    name: 'erp',
    settings: create(ConnectionSettingsSchema, {
      type: ConnectionType.API_KEY,
      baseUrl: `${api.url}/erp`,
      headerName: 'X-Api-Key',
    }),
    secret: API_KEY,
  });
  await connections.setConnection({
    company: COMPANY,
    name: 'erp-oauth',
    settings: create(ConnectionSettingsSchema, {
      type: ConnectionType.OAUTH2_CLIENT_CREDENTIALS,
      tokenUrl: `${idp.issuer}/token`,
      clientId: CLIENT.clientId,
      allowedHosts: [`http://127.0.0.1:${api.port}`],
    }),
    secret: CLIENT.clientSecret,
  });
  // Pinned to https://127.0.0.1:<the api's port>: an allowed host without a scheme is https.
  await connections.setConnection({
    company: COMPANY,
    name: 'erp-https',
    settings: create(ConnectionSettingsSchema, {
      type: ConnectionType.BEARER,
      allowedHosts: [`127.0.0.1:${api.port}`],
    }),
    secret: TLS_TOKEN,
  });
});
test.after.always(async () => {
  await stack?.stop();
  await temporalConnection?.close();
  await Promise.all([api?.close(), idp?.close()]);
});

/** Publishes a sync flow with one httpRequest step and calls it; resolves with the answer's status, value and execution id. */
async function run(httpRequest: Record<string, unknown>) {
  const n = ++flows;
  const activity = `conn.${n}`;
  const definition = flow(
    COMPANY,
    `conn-${n}`,
    { activity, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 20 },
    [
      { name: 'call', httpRequest: { description: 'Call the ERP', maxAttempts: 2, ...httpRequest } },
      { respond: { statusCode: 200, body: '${ $string(Steps.call) }' } },
    ],
  );
  const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
  const response = await fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${COMPANY}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`conn-user:${accessKey}`).toString('base64')}`,
    },
    body: JSON.stringify({ activity, secret, payload: { order: n } }),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    executionId: response.headers.get('x-flowhook-execution-id') ?? '',
    name: `conn-${n}`,
    value: response.status === 200 ? JSON.parse(JSON.parse(text).value) : undefined,
  };
}

/** Every string and every byte field of a structure, decoded as UTF-8, so encoded payloads are searched too. */
function allText(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value instanceof Uint8Array) into.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const item of value) allText(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) allText(item, into);
  return into;
}

test('publishing a flow that names a connection its company lacks is refused with the step named', async (t) => {
  const definition = flow(COMPANY, 'missing-conn', { activity: 'conn.missing' }, [
    { httpRequest: { url: '/x', connection: 'nope' } },
  ]);
  const error = await t.throwsAsync(
    admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true }),
  );
  t.regex(error!.message, /steps\[0\]\.httpRequest\.connection: company "Connected" has no connection "nope"/);
});

test('an api-key connection signs the request, and its secret is nowhere else', async (t) => {
  const answer = await run({ connection: 'erp', method: 'POST', url: '/orders', body: '{"n":1}' });
  t.is(answer.status, 200, answer.text);
  const call = JSON.parse(answer.value.body);
  t.is(call.json.headers['x-api-key'], API_KEY);
  t.is(call.url, `${api.url}/erp/orders`);

  const history = await temporal.workflow.getHandle(answer.executionId).fetchHistory();
  t.true(history.events!.length > 0);
  // The echo server sends the header back in its body: that answer is the flow's data and
  // legitimately in history. Everything else must not hold the key: the step's input above all.
  const scheduled = history.events!.filter((event) => event.activityTaskScheduledEventAttributes);
  t.true(scheduled.length > 0);
  t.false(
    allText(scheduled).some((text) => text.includes(API_KEY)),
    'the activity input holds the key',
  );
  t.false(
    allText(history.events!.filter((event) => event.workflowExecutionStartedEventAttributes)).some((text) =>
      text.includes(API_KEY),
    ),
  );

  const flowGet = toJsonString(GetFlowResponseSchema, await admin.getFlow({ company: COMPANY, name: answer.name }));
  t.false(flowGet.includes(API_KEY));
  t.true(flowGet.includes('"connection":"erp"') || flowGet.includes('"connection": "erp"'));
  const executions = createClient(
    ExecutionService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN! }),
  );
  const shown = toJsonString(
    GetExecutionResponseSchema,
    await executions.getExecution({ executionId: answer.executionId }),
  );
  t.true(shown.includes(answer.executionId));

  t.false(shown.includes(API_KEY));
  const listed = JSON.stringify(await connections.listConnections({ company: COMPANY }), (_k, v) =>
    typeof v === 'bigint' ? String(v) : v,
  );
  t.false(listed.includes(API_KEY));

  const db = new pg.Client({ connectionString: stack.env.FLOWHOOK_DATABASE_URL });
  await db.connect();
  try {
    const tables = (
      await db.query(`select table_name from information_schema.tables where table_schema = 'public'`)
    ).rows.map((row) => row.table_name as string);
    t.true(tables.includes('connection'));
    for (const table of tables) {
      const dump = (await db.query(`select coalesce(json_agg(t)::text, '') as dump from "${table}" t`)).rows[0]
        .dump as string;
      t.false(dump.includes(API_KEY), `table ${table} holds the key in clear`);
      t.false(dump.includes(CLIENT.clientSecret), `table ${table} holds the client secret in clear`);
    }
  } finally {
    await db.end();
  }
  t.false(stack.output().includes(API_KEY), 'a process logged the key');
  t.false(stack.output().includes(CLIENT.clientSecret), 'a process logged the client secret');
});

/** Why the execution behind a failed call failed (its step's message). */
async function failureOf(answer: Awaited<ReturnType<typeof run>>): Promise<string> {
  try {
    await temporal.workflow.getHandle(answer.executionId || /\(execution ([^)]+)\)/.exec(answer.text)![1]!).result();
  } catch (error) {
    return String((error as { cause?: Error }).cause?.message);
  }
  return 'the execution did not fail';
}

test("a connection's credentials do not go to a URL outside its base URL", async (t) => {
  const before = api.seen.filter((seen) => seen.path === '/elsewhere').length;
  const answer = await run({ connection: 'erp', url: `http://localhost:${api.port}/elsewhere` });
  t.is(answer.status, 500);
  t.is(api.seen.filter((seen) => seen.path === '/elsewhere').length, before);
  t.regex(await failureOf(answer), /connection "erp" may not send its credentials/);
});

test('a pin is scheme, port and path: an https pin never sends its secret over http, and ..; or %2f never leave the base path', async (t) => {
  // The pinned port, but plain http: the token would cross the network in clear.
  const plain = await run({ connection: 'erp-https', url: `http://127.0.0.1:${api.port}/plain-http` });
  // Under http://…/erp as WHATWG parses them; a Tomcat or a decoding proxy reads both as /pinned-out.
  const parameters = await run({ connection: 'erp', url: '/..;/pinned-out' });
  const encoded = await run({ connection: 'erp', url: '/..%2fpinned-out' });
  for (const [answer, name] of [
    [plain, 'erp-https'],
    [parameters, 'erp'],
    [encoded, 'erp'],
  ] as const) {
    t.is(answer.status, 500, answer.text);
    t.regex(await failureOf(answer), new RegExp(`connection "${name}" may not send its credentials`));
  }
  t.deepEqual(
    api.seen.filter((seen) => /plain-http|pinned-out/.test(seen.path)),
    [],
    'nothing was sent, credentials or not',
  );
  t.false(stack.output().includes(TLS_TOKEN));
});

test('OAuth client-credentials tokens are fetched once and reused until near expiry', async (t) => {
  const first = await run({ connection: 'erp-oauth', url: `${api.url}/oauth/orders` });
  const second = await run({ connection: 'erp-oauth', url: `${api.url}/oauth/orders` });
  t.is(first.status, 200, first.text);
  t.is(second.status, 200, second.text);
  const tokenOf = (answer: typeof first) =>
    String(JSON.parse(answer.value.body).json.headers.authorization).replace(/^Bearer /, '');
  t.is(tokenOf(first), tokenOf(second));
  t.is(idp.tokenRequests(), 1);
  const { payload } = await jwtVerify(tokenOf(first), createRemoteJWKSet(new URL(`${idp.issuer}/jwks`)), {
    issuer: idp.issuer,
  });
  t.is(payload.client_id, CLIENT.clientId);
  t.false(stack.output().includes(tokenOf(first)), 'a process logged the access token');
});
