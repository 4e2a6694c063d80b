// An internal service calling the engine directly, the way the handbook tells a
// team to: the example program in examples/internal-service runs as a child
// process with its own invoke account (over h2c and over TLS), and `buf curl`
// makes the same call from the command line, learning the schema by gRPC
// reflection alone. Both must reach the flow, answer with its response and
// leave an execution whose caller is the account; refusals must say why.
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPANY_KEY, FLOW_CALLER_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTestCertificates } from '../support/test-certificates.ts';
import { createTenant, deployFlow, flow } from '../support/webhook-helpers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'internal-service', 'invoke-webhook.ts');
const BUF = join(ROOT, 'node_modules', '.bin', 'buf');
const INVOKE_PATH = '/flowhook.engine.v1.WebhookService/Invoke';

const ACTIVITY = 'billing.order';
const ACCOUNT = 'billing-sync';
/** Answers 201 with a body built from the payload, so the test sees its own payload come back. */
const ORDER_FLOW_STEPS = [
  {
    respond: {
      description: 'Accepted',
      statusCode: 201,
      contentType: 'application/json',
      body: '${ {"accepted": Trigger.Payload.orderId} }',
    },
  },
];

interface Deployment {
  company: string;
  secret: string;
  token: string;
}

let stack: TestStack;
let cronus: Deployment;
/** A flow of another company, which billing-sync was not created for. */
let other: Deployment;
let scratch: string;

/** A company with the order flow and an invoke account of its own, as `flowhook service-account create … --company` makes it. */
async function deployOrderFlow(target: TestStack, company: string, account: string): Promise<Deployment> {
  await createTenant(target, company);
  const { secret } = await deployFlow(
    target,
    flow(company, 'order', { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP' }, ORDER_FLOW_STEPS),
  );
  const { token } = await target.admin.createServiceAccount({ name: account, scope: 'invoke', companies: [company] });
  return { company, secret, token };
}

test.before(async () => {
  stack = await startStack();
  cronus = await deployOrderFlow(stack, 'CRONUS', ACCOUNT);
  other = await deployOrderFlow(stack, 'Fabrikam', 'fabrikam-sync');
  scratch = await mkdtemp(join(tmpdir(), 'flowhook-internal-caller-'));
});
test.after.always(async () => {
  await stack?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface ProgramRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runProgram(command: string, args: string[], env: Record<string, string | undefined>): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Only what a deployment of the example would set: nothing from this process's FLOWHOOK_* leaks in. */
function exampleEnv(
  engineUrl: string,
  deployment: Deployment,
  overrides: Record<string, string> = {},
): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    FLOWHOOK_ENGINE_URL: engineUrl,
    FLOWHOOK_ENGINE_TOKEN: deployment.token,
    FLOWHOOK_COMPANY: deployment.company,
    FLOWHOOK_ACTIVITY: ACTIVITY,
    FLOWHOOK_SECRET: deployment.secret,
    ...overrides,
  };
}

const runExample = (env: Record<string, string | undefined>, payload?: string) =>
  runProgram(process.execPath, payload === undefined ? [EXAMPLE] : [EXAMPLE, payload], env);

/** The example's printed answer: `name: value` lines, a blank line, then the body. */
function parseAnswer(t: ExecutionContext, run: ProgramRun): { fields: Record<string, string>; body: string } {
  t.is(run.code, 0, `stdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const [head = '', ...rest] = run.stdout.split('\n\n');
  const fields = Object.fromEntries(
    head.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { fields, body: rest.join('\n\n').trimEnd() };
}

/** The execution exists in Temporal, belongs to the company and records the account as its caller. */
async function assertRecordedExecution(
  t: ExecutionContext,
  target: TestStack,
  executionId: string,
  company: string,
): Promise<void> {
  t.truthy(executionId);
  const described = await target.temporal.workflow.getHandle(executionId).describe();
  t.is(described.workflowId, executionId);
  t.is(described.typedSearchAttributes.get(COMPANY_KEY), company);
  t.is(described.typedSearchAttributes.get(FLOW_CALLER_KEY), `account:${ACCOUNT}`);
}

test('the example program invokes the flow as the service account and prints its answer', async (t) => {
  const run = await runExample(exampleEnv(stack.engineUrl, cronus), '{"orderId":42}');
  const { fields, body } = parseAnswer(t, run);
  t.is(fields.status, '201');
  t.is(fields['content-type'], 'application/json');
  t.is(fields.outcome, 'RESPONDED');
  t.deepEqual(JSON.parse(body), { accepted: 42 });
  await assertRecordedExecution(t, stack, fields.execution!, cronus.company);
});

test('the example reads the token from a file only its owner can read', async (t) => {
  const tokenFile = join(scratch, 'billing-sync.token');
  await writeFile(tokenFile, `${cronus.token}\n`, { mode: 0o600 });
  const fromFile = parseAnswer(
    t,
    await runExample(
      exampleEnv(stack.engineUrl, cronus, { FLOWHOOK_ENGINE_TOKEN: '', FLOWHOOK_ENGINE_TOKEN_FILE: tokenFile }),
      '{"orderId":600}',
    ),
  );
  t.deepEqual(JSON.parse(fromFile.body), { accepted: 600 });
  await assertRecordedExecution(t, stack, fromFile.fields.execution!, cronus.company);

  const sharedFile = join(scratch, 'shared.token');
  await writeFile(sharedFile, cronus.token);
  await chmod(sharedFile, 0o644); // explicitly: the umask may have taken the group and other bits already
  const shared = await runExample(
    exampleEnv(stack.engineUrl, cronus, { FLOWHOOK_ENGINE_TOKEN: '', FLOWHOOK_ENGINE_TOKEN_FILE: sharedFile }),
    '{"orderId":644}',
  );
  t.is(shared.code, 2);
  t.regex(shared.stderr, /shared\.token is readable by others: chmod 600 it/);
  t.is(shared.stdout, '');
});

test('the example sends FLOWHOOK_IDEMPOTENCY_KEY: a retry joins the first execution', async (t) => {
  const env = exampleEnv(stack.engineUrl, cronus, { FLOWHOOK_IDEMPOTENCY_KEY: `order-7-${Date.now()}` });
  const first = parseAnswer(t, await runExample(env, '{"orderId":7}'));
  const retry = parseAnswer(t, await runExample(env, '{"orderId":7}'));
  t.is(retry.fields.execution, first.fields.execution);
  t.deepEqual(JSON.parse(retry.body), { accepted: 7 });
  const unkeyed = parseAnswer(t, await runExample(exampleEnv(stack.engineUrl, cronus), '{"orderId":7}'));
  t.not(unkeyed.fields.execution, first.fields.execution);
});

test('the example turns refusals into a message naming the reason and exit code 1', async (t) => {
  const refusals: [string, Record<string, string>, RegExp][] = [
    [
      'a wrong token',
      { FLOWHOOK_ENGINE_TOKEN: `fhsa_${'x'.repeat(43)}` },
      /unauthenticated.*a valid service account token is required/,
    ],
    ['a wrong flow secret', { FLOWHOOK_SECRET: 'x'.repeat(32) }, /unauthenticated.*flow secret is wrong/],
    ['an unknown activity', { FLOWHOOK_ACTIVITY: 'billing.nothing' }, /not found/],
    [
      "another company's flow",
      { FLOWHOOK_COMPANY: other.company, FLOWHOOK_SECRET: other.secret },
      /permission denied: Service account "billing-sync" may not call flows of company "Fabrikam"/,
    ],
    [
      'no engine listening',
      { FLOWHOOK_ENGINE_URL: 'http://127.0.0.1:1' },
      /cannot reach the engine at http:\/\/127\.0\.0\.1:1: connect ECONNREFUSED/,
    ],
    [
      'a token of another scope',
      { FLOWHOOK_ENGINE_TOKEN: stack.tokens.worker },
      /permission denied: .*needs a service account of scope "invoke"/,
    ],
  ];
  await Promise.all(
    refusals.map(async ([why, overrides, message]) => {
      const run = await runExample(exampleEnv(stack.engineUrl, cronus, overrides), '{"orderId":1}');
      t.is(run.code, 1, `${why}: ${run.stderr}`);
      t.is(run.stdout, '', why);
      t.regex(run.stderr, message, why);
    }),
  );
});

test('the example refuses a payload that is not a JSON object, and a CA on a cleartext URL, before calling', async (t) => {
  const notObject = await runExample(exampleEnv(stack.engineUrl, cronus), '[1,2]');
  t.is(notObject.code, 2);
  t.regex(notObject.stderr, /the payload must be a JSON object/);
  const caOverCleartext = await runExample(
    exampleEnv(stack.engineUrl, cronus, { FLOWHOOK_ENGINE_CA: join(scratch, 'ca.pem') }),
  );
  t.is(caOverCleartext.code, 2);
  t.regex(caOverCleartext.stderr, /TLS settings are set but http:\/\/127\.0\.0\.1:\d+ is not https/);
});

const invokeRequest = (deployment: Deployment, payload: object) =>
  JSON.stringify({
    company: deployment.company,
    activity: ACTIVITY,
    secret: deployment.secret,
    payloadJson: JSON.stringify(payload),
  });

/** `buf curl` with no proto files: the schema comes from the engine's reflection service. */
const bufCurl = (engineUrl: string, args: string[], request: string) =>
  runProgram(BUF, ['curl', '--protocol', 'grpc', '--reflect', ...args, '-d', request, `${engineUrl}${INVOKE_PATH}`], {
    PATH: process.env.PATH,
    HOME: scratch,
  });

/** Which requests of a `buf curl -v` run carried an authorization header, by path. */
function authorizedPaths(verboseLog: string): Record<string, boolean> {
  const pathOfStream = new Map<string, string>();
  const authorized = new Set<string>();
  for (const line of verboseLog.split('\n')) {
    const request = /> \(#(\d+)\) POST (\S+)/.exec(line);
    if (request) pathOfStream.set(request[1]!, request[2]!);
    const header = /> \(#(\d+)\) authorization:/i.exec(line);
    if (header) authorized.add(header[1]!);
  }
  return Object.fromEntries([...pathOfStream].map(([stream, path]) => [path, authorized.has(stream)]));
}

test('buf curl makes the same call over h2c, learning the schema by reflection', async (t) => {
  // -v shows each request's headers: -H goes on the Invoke call only, not on reflection (which needs no token).
  const run = await bufCurl(
    stack.engineUrl,
    ['-v', '--http2-prior-knowledge', '-H', `authorization: Bearer ${cronus.token}`],
    invokeRequest(cronus, { orderId: 99 }),
  );
  t.is(run.code, 0, run.stderr);
  const answer = JSON.parse(run.stdout) as {
    statusCode: number;
    contentType: string;
    body: string;
    executionId: string;
    outcome: string;
  };
  t.is(answer.statusCode, 201);
  t.is(answer.contentType, 'application/json');
  t.deepEqual(JSON.parse(answer.body), { accepted: 99 });
  t.is(answer.outcome, 'INVOKE_OUTCOME_RESPONDED');
  await assertRecordedExecution(t, stack, answer.executionId, cronus.company);
  t.deepEqual(authorizedPaths(run.stderr), {
    '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo': false,
    [INVOKE_PATH]: true,
  });
});

test('buf curl reads the token from a header file, keeping it off the command line', async (t) => {
  const headers = join(scratch, 'engine-headers');
  await writeFile(headers, `authorization: Bearer ${cronus.token}\n`, { mode: 0o600 });
  const run = await bufCurl(
    stack.engineUrl,
    ['--http2-prior-knowledge', '-H', `@${headers}`],
    invokeRequest(cronus, { orderId: 5 }),
  );
  t.is(run.code, 0, run.stderr);
  t.is((JSON.parse(run.stdout) as { statusCode: number }).statusCode, 201);
});

test('buf curl with a wrong token is refused as unauthenticated (reflection, open to all, still works)', async (t) => {
  const run = await bufCurl(
    stack.engineUrl,
    ['--http2-prior-knowledge', '-H', `authorization: Bearer fhsa_${'x'.repeat(43)}`],
    invokeRequest(cronus, { orderId: 6 }),
  );
  t.not(run.code, 0);
  // Reflection answered (the request was encoded); the Invoke call itself was refused.
  t.regex(run.stderr, /unauthenticated/);
  t.regex(run.stderr, /a valid service account token is required/);
});

test('over TLS: the example with FLOWHOOK_ENGINE_CA and buf curl --cacert reach the engine; without the CA they do not', async (t) => {
  const certificates = await createTestCertificates();
  const caEnv = { FLOWHOOK_ENGINE_CA: certificates.serverCa };
  const tlsStack = await startStack({
    engineTls: {
      engine: { FLOWHOOK_ENGINE_TLS_CERT: certificates.server.cert, FLOWHOOK_ENGINE_TLS_KEY: certificates.server.key },
      facade: caEnv,
      worker: caEnv,
      admin: caEnv,
      records: caEnv,
    },
  });
  try {
    t.regex(tlsStack.engineUrl, /^https:\/\/localhost:\d+$/);
    const deployment = await deployOrderFlow(tlsStack, 'CRONUS', ACCOUNT);

    const viaExample = parseAnswer(
      t,
      await runExample(exampleEnv(tlsStack.engineUrl, deployment, caEnv), '{"orderId":443}'),
    );
    t.is(viaExample.fields.status, '201');
    t.deepEqual(JSON.parse(viaExample.body), { accepted: 443 });
    await assertRecordedExecution(t, tlsStack, viaExample.fields.execution!, deployment.company);

    const untrusted = await runExample(exampleEnv(tlsStack.engineUrl, deployment), '{"orderId":1}');
    t.is(untrusted.code, 1, untrusted.stderr);
    t.regex(untrusted.stderr, /cannot reach the engine at https:\/\/localhost:\d+: .*certificate/);

    const viaBuf = await bufCurl(
      tlsStack.engineUrl,
      ['--cacert', certificates.serverCa, '-H', `authorization: Bearer ${deployment.token}`],
      invokeRequest(deployment, { orderId: 444 }),
    );
    t.is(viaBuf.code, 0, viaBuf.stderr);
    t.deepEqual(JSON.parse((JSON.parse(viaBuf.stdout) as { body: string }).body), { accepted: 444 });

    const bufUntrusted = await bufCurl(
      tlsStack.engineUrl,
      ['-H', `authorization: Bearer ${deployment.token}`],
      invokeRequest(deployment, { orderId: 2 }),
    );
    // buf curl reports the failed reflection handshake only as a schema it could not find.
    t.not(bufUntrusted.code, 0);
    t.is(bufUntrusted.stdout, '');
  } finally {
    await tlsStack.close();
    await certificates.remove();
  }
});

test("over mutual TLS: the example presents the account's client certificate; without it the handshake fails", async (t) => {
  const certificates = await createTestCertificates();
  const [facade, worker, admin, records, account] = await Promise.all(
    ['test-facade', 'test-worker', 'test-admin', 'test-records', ACCOUNT].map((name) => certificates.issueClient(name)),
  );
  const clientEnv = (client: { cert: string; key: string }) => ({
    FLOWHOOK_ENGINE_CA: certificates.serverCa,
    FLOWHOOK_ENGINE_CLIENT_CERT: client.cert,
    FLOWHOOK_ENGINE_CLIENT_KEY: client.key,
  });
  const mtlsStack = await startStack({
    engineTls: {
      engine: {
        FLOWHOOK_ENGINE_TLS_CERT: certificates.server.cert,
        FLOWHOOK_ENGINE_TLS_KEY: certificates.server.key,
        FLOWHOOK_ENGINE_TLS_CLIENT_CA: certificates.clientCa,
      },
      facade: clientEnv(facade),
      worker: clientEnv(worker),
      admin: clientEnv(admin),
      records: clientEnv(records),
    },
  });
  try {
    const deployment = await deployOrderFlow(mtlsStack, 'CRONUS', ACCOUNT);
    const answer = parseAnswer(
      t,
      await runExample(exampleEnv(mtlsStack.engineUrl, deployment, clientEnv(account)), '{"orderId":445}'),
    );
    t.is(answer.fields.status, '201');
    await assertRecordedExecution(t, mtlsStack, answer.fields.execution!, deployment.company);
    const withoutCertificate = await runExample(
      exampleEnv(mtlsStack.engineUrl, deployment, { FLOWHOOK_ENGINE_CA: certificates.serverCa }),
      '{"orderId":3}',
    );
    t.is(withoutCertificate.code, 1, withoutCertificate.stderr);
    const halfConfigured = await runExample(
      exampleEnv(mtlsStack.engineUrl, deployment, {
        FLOWHOOK_ENGINE_CA: certificates.serverCa,
        FLOWHOOK_ENGINE_CLIENT_CERT: account.cert,
      }),
      '{"orderId":4}',
    );
    t.is(halfConfigured.code, 2);
    t.regex(halfConfigured.stderr, /FLOWHOOK_ENGINE_CLIENT_CERT and FLOWHOOK_ENGINE_CLIENT_KEY together/);
  } finally {
    await mtlsStack.close();
    await certificates.remove();
  }
});
