// The whole path over TLS and mutual TLS (issue 12): a webhook call through
// the facade reaches the engine over TLS, the flow's record step reaches it
// from the worker over TLS, and the CLI's admin calls too — with certificates
// this test makes. Under mutual TLS a client certificate is required, its CN
// names the service account, and a token of another account is refused.
import test, { type ExecutionContext } from 'ava';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { engineTransportOptions, readEngineClientTls } from '../../common/engine-client-tls.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { recordClient } from '../support/record-client.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTestCertificates, type TestCertificates } from '../support/test-certificates.ts';
import { callWebhook, createTenant, deployFlow, flow } from '../support/webhook-helpers.ts';

let certificates: TestCertificates;

test.before(async () => {
  certificates = await createTestCertificates();
});
test.after.always(async () => certificates?.remove());

const serverTls = () => ({
  FLOWHOOK_ENGINE_TLS_CERT: certificates.server.cert,
  FLOWHOOK_ENGINE_TLS_KEY: certificates.server.key,
});
const clientTls = (client?: { cert: string; key: string }) => ({
  FLOWHOOK_ENGINE_CA: certificates.serverCa,
  ...(client ? { FLOWHOOK_ENGINE_CLIENT_CERT: client.cert, FLOWHOOK_ENGINE_CLIENT_KEY: client.key } : {}),
});

/** A webhook call whose flow writes a record (worker → engine) and answers (facade ← engine). */
async function roundTrip(t: ExecutionContext, stack: TestStack, company: string): Promise<string> {
  const tenant = await createTenant(stack, company);
  const { secret } = await deployFlow(
    stack,
    flow(
      tenant.company,
      'tls',
      { activity: 'tls.note', responseMode: 'WAIT_FOR_RESPONSE_STEP' },
      [
        {
          record: {
            description: 'Note the call',
            table: 'seen',
            key: '${Trigger.Payload.key}',
            upsert: { via: 'tls' },
          },
        },
        { respond: { description: 'answer', statusCode: 200, body: '${Steps.noted.version}' } },
      ].map((step, index) => (index === 0 ? { name: 'noted', ...step } : step)),
    ),
  );
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'tls.note',
    secret,
    auth: tenant.auth,
    payloadText: '{"key":"k-1"}',
  });
  t.is(answer.status, 200, answer.text);
  t.is((answer.value as { body: string }).body, '1');
  const record = await recordClient(stack).getRecord({ scope: { company: tenant.company, table: 'seen', key: 'k-1' } });
  t.is(record.record?.version, 1n);
  return secret;
}

/** The call failed at the TLS layer (connect-node reports it as internal, unavailable or a cancelled stream), not in the engine. */
function refusedHandshake(t: ExecutionContext, error: unknown, why: string): void {
  t.true(error instanceof ConnectError, why);
  t.true(
    [Code.Internal, Code.Unavailable, Code.Canceled].includes((error as ConnectError).code),
    `${why}: ${String(error)}`,
  );
  t.notRegex((error as ConnectError).rawMessage, /service account|Unauthorized/, why);
}

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  };

test('facade → engine → worker records over TLS; a client without the CA is refused', async (t) => {
  const stack = await startStack({
    engineTls: {
      engine: serverTls(),
      facade: clientTls(),
      worker: clientTls(),
      admin: clientTls(),
      records: clientTls(),
    },
  });
  try {
    t.true(stack.engineUrl.startsWith('https://'));
    await roundTrip(t, stack, 'TLS Co');
    // Cleartext to a TLS port, or TLS without trusting the CA, gets nowhere.
    const untrusted = createClient(WebhookService, createGrpcTransport({ baseUrl: stack.engineUrl }));
    refusedHandshake(t, await t.throwsAsync(untrusted.invoke({})), 'no CA');
  } finally {
    await stack.close();
  }
});

test('mutual TLS: a certificate is required, its CN names the account, and a token of another account is refused', async (t) => {
  const [facade, worker, admin, records, internal] = await Promise.all(
    ['test-facade', 'test-worker', 'test-admin', 'test-records', 'test-internal'].map((name) =>
      certificates.issueClient(name),
    ),
  );
  const stack = await startStack({
    engineTls: {
      engine: { ...serverTls(), FLOWHOOK_ENGINE_TLS_CLIENT_CA: certificates.clientCa },
      facade: clientTls(facade),
      worker: clientTls(worker),
      admin: clientTls(admin),
      records: clientTls(records),
    },
  });
  try {
    const secret = await roundTrip(t, stack, 'mTLS Co');
    const invoke = { company: 'mTLS Co', activity: 'tls.note', secret, payloadJson: '{"key":"k-2"}' };
    const webhook = (client: { cert: string; key: string } | undefined, token?: string) =>
      createClient(
        WebhookService,
        createGrpcTransport({
          baseUrl: stack.engineUrl,
          ...engineTransportOptions(readEngineClientTls(clientTls(client), stack.engineUrl)),
          interceptors: token ? [bearer(token)] : [],
        }),
      );
    // The certificate alone names the account: test-internal calls as itself, without a token.
    t.is((await webhook(internal).invoke(invoke)).statusCode, 200);
    // Without a certificate, or with one of an unknown CA (even with the right CN), the handshake fails.
    refusedHandshake(
      t,
      await t.throwsAsync(webhook(undefined, stack.tokens.internal).invoke(invoke)),
      'no client certificate',
    );
    refusedHandshake(
      t,
      await t.throwsAsync(webhook(certificates.strangerClient, stack.tokens.internal).invoke(invoke)),
      'a certificate of another CA',
    );
    // Certificate and token must name the same account.
    const mixed = (await t.throwsAsync(webhook(facade, stack.tokens.internal).invoke(invoke))) as ConnectError;
    t.is(mixed.code, Code.PermissionDenied);
    t.regex(mixed.rawMessage, /client certificate names service account "test-facade"/);
  } finally {
    await stack.close();
  }
});

test('the engine refuses to serve cleartext on a non-loopback address unless told it may', (t) => {
  const env = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', FLOWHOOK_ENGINE_HOST: '0.0.0.0' };
  t.throws(() => readEngineConfig(env), { message: /FLOWHOOK_ENGINE_TLS_CERT.*FLOWHOOK_ENGINE_INSECURE=true/s });
  t.is(readEngineConfig({ ...env, FLOWHOOK_ENGINE_INSECURE: 'true' }).host, '0.0.0.0');
  t.not(readEngineConfig({ ...env, ...serverTls() }).tls, undefined);
});
