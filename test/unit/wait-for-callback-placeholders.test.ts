// Callback URLs never enter the workflow: it holds placeholders, and the
// httpRequest activity swaps them for the URLs the engine mints just before it
// sends — in the URL, header values and body — while every message it raises
// shows the placeholders again.
import test from 'ava';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { CallbackUrls } from '../../workflows/activities/callback-urls.ts';
import type { OutboundClient } from '../../workflows/activities/engine-client.ts';
import { createHttpRequestActivity, type HttpRequestInput } from '../../workflows/activities/http-request.ts';
import { OAuthTokenCache } from '../../workflows/outbound/oauth-token-cache.ts';
import { callbackPlaceholder, placeholdersIn, replacePlaceholders } from '../../flow/callback-placeholders.ts';
import { parseEgressRules } from '../../flow/egress-policy.ts';
import { markSensitive } from '../../flow/payload-converter.ts';

const NONCE = '0123456789abcdef0123456789abcdef';
const TOKEN = 'kq3xY_Zw-abcdefghijklmnopqrstuvwxyz01234567';
const URL_A = `https://flowhook.example/BC/callbacks/${TOKEN}`;
const URL_AB = 'https://flowhook.example/BC/callbacks/other-token-of-step-ab-000000000000000000';
const A = callbackPlaceholder(NONCE, 'a');
const AB = callbackPlaceholder(NONCE, 'ab');

test('a placeholder is URL-safe text naming the nonce and the step, so encoding leaves it intact', (t) => {
  t.is(A, `flowhook-callback-${NONCE}-a`);
  t.is(encodeURIComponent(AB), AB);
  t.is(JSON.stringify(AB), `"${AB}"`);
});

test('the longest placeholder wins: step ab is not step a followed by "b"', (t) => {
  const urls = new Map([
    [A, URL_A],
    [AB, URL_AB],
  ]);
  t.is(replacePlaceholders(`${AB} ${A} ${A}_x`, urls), `${URL_AB} ${URL_A} ${URL_A}_x`);
  t.deepEqual([...placeholdersIn([`x=${AB}`], [A, AB])], [AB]);
  t.deepEqual([...placeholdersIn([`x=${AB}`, A], [A, AB])].sort(), [A, AB].sort());
  t.deepEqual([...placeholdersIn(['nothing'], [A])], []);
  t.is(replacePlaceholders('nothing to do', new Map()), 'nothing to do');
});

test('CallbackUrls substitutes for the request and redacts URLs and bare tokens in messages', (t) => {
  const callbacks = new CallbackUrls([
    { step: 'a', placeholder: A },
    { step: 'ab', placeholder: AB },
    { step: 'a', placeholder: A },
  ]);
  t.deepEqual(callbacks.steps, ['a', 'ab'], 'each step asked for once');
  t.is(callbacks.substitute(A), A, 'nothing before the engine answered');
  callbacks.learn({ a: URL_A, ab: URL_AB });
  t.is(callbacks.substitute(`{"cb":"${A}"}`), `{"cb":"${URL_A}"}`);
  t.is(callbacks.redact(`POST ${URL_A} and /BC/callbacks/${TOKEN}`), `POST ${A} and /BC/callbacks/${A}`);
  const failure = callbacks.redactFailure(
    ApplicationFailure.create({
      message: `GET ${URL_AB}: timed out`,
      type: 'HttpRequestTimedOut',
      nonRetryable: false,
    }),
  );
  t.is(failure.message, `GET ${AB}: timed out`);
  t.is(failure.type, 'HttpRequestTimedOut');
  t.false(failure.nonRetryable);
  const untouched = ApplicationFailure.create({ message: 'nothing secret', type: 'X' });
  t.is(callbacks.redactFailure(untouched), untouched);
  t.throws(() => new CallbackUrls([{ step: 'a', placeholder: A }]).learn({}), {
    message: /minted no callback URL for step "a"/,
  });
});

// ── the activity, against a server on the loopback interface ──

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];

test.before(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ url: request.url ?? '', headers: request.headers, body });
      const notify = String(request.headers['x-callback'] ?? '');
      // A payment provider that echoes the notify URL it was given, as most do.
      if (request.url === '/echo/json') {
        // The same URL as written, with JSON's optional \/ escapes, and percent-encoded in a form field.
        const answer = `{"notifyUrl":"${notify}","escaped":"${notify.replaceAll('/', '\\/')}","form":"notify=${encodeURIComponent(notify)}"}`;
        response
          .writeHead(200, { 'content-type': 'application/json', 'x-notify': notify, location: notify })
          .end(answer);
      } else if (request.url === '/echo/xml') {
        response
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(`<payment><notify url="${notify}">${notify}</notify></payment>`);
      } else if (request.url === '/echo/redirect') {
        response.writeHead(307, { location: `/echo/landing?cb=${encodeURIComponent(notify)}` }).end();
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(() => new Promise<void>((resolve) => server.close(() => resolve())));

function activity(callbackUrls: Record<string, string>, requests: unknown[] = []) {
  const outbound = {
    async resolveOutbound(request: unknown) {
      requests.push(request);
      return { callbackUrls };
    },
  } as unknown as OutboundClient;
  const policy = { allow: parseEgressRules('127.0.0.1/32', 'test'), ownPorts: new Map<number, string>() };
  return createHttpRequestActivity({
    outbound,
    policy,
    tokens: new OAuthTokenCache(),
    maxResponseBytes: 100_000,
    maxJsonDepth: 100,
  });
}

const input = (url: string, extra: Partial<HttpRequestInput> = {}): HttpRequestInput => ({
  method: 'POST',
  url,
  headers: { 'x-callback': A },
  body: `{"callbackUrl": "${A}"}`,
  timeoutMs: 5_000,
  idempotencyKey: 'exec-1/steps[0]',
  company: 'C',
  caller: 'user:test',
  executionGrant: 'grant',
  callbacks: [{ step: 'a', placeholder: A }],
  ...extra,
});

test.serial("the activity asks the engine for the steps' URLs and sends them in url, headers and body", async (t) => {
  const requests: { callbackSteps?: string[]; callbacksSensitive?: boolean; executionId?: string }[] = [];
  const output = await activity({ a: URL_A }, requests)(input(`${base}/payments?cb=${A}`));
  t.is(output.status, 200);
  const request = seen.at(-1)!;
  t.is(request.url, `/payments?cb=${URL_A}`);
  t.is(request.headers['x-callback'], URL_A);
  t.is(request.body, `{"callbackUrl": "${URL_A}"}`);
  t.deepEqual(
    requests.map(({ callbackSteps, callbacksSensitive, executionId }) => ({
      callbackSteps,
      callbacksSensitive,
      executionId,
    })),
    [{ callbackSteps: ['a'], callbacksSensitive: false, executionId: 'exec-1' }],
  );

  await activity({ a: URL_A }, requests)(markSensitive(input(`${base}/payments`)));
  t.true(requests.at(-1)!.callbacksSensitive, "a doNotLogPayload execution's callbacks are marked sensitive");

  await activity({}, requests)(input(`${base}/plain`, { headers: {}, body: 'no callback', callbacks: undefined }));
  t.deepEqual(requests.at(-1)!.callbackSteps, [], 'without callbacks the engine is asked as before');
  t.false(requests.at(-1)!.callbacksSensitive);
});

test.serial('a failed attempt names the placeholder, never the URL or its token', async (t) => {
  // A port nothing listens on: the connection fails with a message naming the target's path.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const error = await t.throwsAsync(activity({ a: URL_A })(input(`http://127.0.0.1:${port}/cb/${A}`)));
  t.true(error instanceof ApplicationFailure);
  t.true(error!.message.includes(A), error!.message);
  t.false(error!.message.includes(TOKEN), error!.message);

  const refused = await t.throwsAsync(activity({})(input(`${base}/x`)));
  t.is((refused as ApplicationFailure).type, 'CallbackUnavailable');
  t.true((refused as ApplicationFailure).nonRetryable, 'sending the placeholder instead is never an option');
});

test.serial(
  'an answer that echoes the callback URL shows the placeholder in body, json, xml, headers and url',
  async (t) => {
    const json = await activity({ a: URL_A })(input(`${base}/echo/json`));
    const jsonText = JSON.stringify(json);
    t.false(jsonText.includes(TOKEN), jsonText);
    t.deepEqual(json.json, {
      notifyUrl: A,
      escaped: `https://flowhook.example/BC/callbacks/${A}`,
      form: `notify=${encodeURIComponent('https://flowhook.example/BC/callbacks/')}${A}`,
    });
    t.is(json.headers['x-notify'], A);
    t.is(json.headers.location, A);
    t.true(json.body.includes(`"notifyUrl":"${A}"`));

    const xml = await activity({ a: URL_A })(input(`${base}/echo/xml`));
    t.false(JSON.stringify(xml).includes(TOKEN));
    t.deepEqual(xml.xml, { payment: { notify: { '@url': A, '#text': A } } });

    const redirected = await activity({ a: URL_A })(input(`${base}/echo/redirect`));
    t.is(redirected.redirects, 1);
    t.false(JSON.stringify(redirected).includes(TOKEN), redirected.url);
    t.true(
      redirected.url.endsWith(`cb=${encodeURIComponent('https://flowhook.example/BC/callbacks/')}${A}`),
      redirected.url,
    );
    t.is(seen.at(-1)!.url, `/echo/landing?cb=${encodeURIComponent(URL_A)}`, 'the target itself got the real URL');
  },
);
