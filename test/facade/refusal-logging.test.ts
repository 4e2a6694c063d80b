// The facade logs the refusals it decides itself — one `call refused` line
// with the reason, request id and company — and leaves the engine's 401/403
// to the engine's own line, so no refused call is logged twice.
import { Writable } from 'node:stream';
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createFacade, type ListeningFacade } from '../../facade/app.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { createFacadeLogger } from '../../facade/logger.ts';

const ACCESS_KEY = 'facade-test-access-key-0123456789';
const SECRET = 'facade-test-secret-0123456789abcd';
const basic = (user: string) => `Basic ${Buffer.from(`${user}:${ACCESS_KEY}`).toString('base64')}`;

const logLines: string[] = [];
let facade: ListeningFacade;
let base: string;

test.before(async () => {
  // The engine refuses by user name: `refused-by-engine` is a 401, `not-permitted` a 403.
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      invoke(request) {
        const user = request.caller?.identity.case === 'basic' ? request.caller.identity.value.userName : '';
        if (user === 'not-permitted')
          throw new ConnectError(
            'Caller "not-permitted" lacks the permission set "FLOW ALL" for company "Refusals"',
            Code.PermissionDenied,
          );
        throw new ConnectError('Unauthorized', Code.Unauthenticated);
      },
    });
  });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
  });
  facade = await createFacade({
    config,
    webhookClient: createClient(WebhookService, transport),
    logger: createFacadeLogger('info', sink),
  }).listen();
  base = `http://127.0.0.1:${facade.port}`;
});
test.after.always(async () => facade?.close());

async function post(
  company: string,
  authorization: string | undefined,
): Promise<{ status: number; text: string; requestId: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${base}/BC/ODataV4/flowWebhook_Invoke?company=${company}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ activity: 'orders.in', secret: SECRET, payload: {} }),
  });
  return {
    status: response.status,
    text: await response.text(),
    requestId: response.headers.get('x-request-id') ?? '',
  };
}

const refusedLines = (requestId: string) =>
  logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'call refused' && line.requestId === requestId);

const facadeRefusals: [string, string | undefined, string][] = [
  ['no Authorization header', undefined, 'missing_credentials'],
  ['an empty Authorization header', '', 'missing_credentials'],
  ['a scheme the facade does not accept', 'Negotiate abc', 'unsupported_scheme'],
  ['Bearer without OAuth configured', 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig', 'unsupported_scheme'],
  ['Basic that is not base64', 'Basic not-base64!', 'malformed_credentials'],
  ['Basic without a colon', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'malformed_credentials'],
  ['no scheme at all', '!!!', 'malformed_credentials'],
];

for (const [why, authorization, reason] of facadeRefusals) {
  test(`${why}: 401, one line with ${reason}`, async (t) => {
    const company = `Co-${reason}-${why.length}`;
    const answer = await post(company, authorization);
    t.is(answer.status, 401);
    t.is(answer.text, 'Unauthorized');
    const lines = refusedLines(answer.requestId);
    t.is(lines.length, 1, JSON.stringify(lines));
    t.like(lines[0], { level: 40, reason, requestId: answer.requestId, company });
    t.is(lines[0]?.activity, undefined, 'the body is not read before the caller is known');
  });
}

test('a 401 or 403 from the engine is not logged again by the facade', async (t) => {
  const refused = await post('EngineRefusals', basic('refused-by-engine'));
  t.is(refused.status, 401);
  t.is(refused.text, 'Unauthorized');
  t.deepEqual(refusedLines(refused.requestId), []);
  const forbidden = await post('EngineRefusals', basic('not-permitted'));
  t.is(forbidden.status, 403);
  t.regex(JSON.parse(forbidden.text).error.message, /lacks the permission set "FLOW ALL"/);
  t.deepEqual(refusedLines(forbidden.requestId), []);
});

test.after('no access key or secret in the facade log', (t) => {
  const output = logLines.join('');
  t.false(output.includes(ACCESS_KEY));
  t.false(output.includes(SECRET));
});
