// The provider route end to end (issue 14): POST /{instance}/hooks/{company}/{activity}
// against a real stack. Requests are signed with the providers' own libraries
// (standardwebhooks, stripe, @octokit/webhooks-methods) or by hand per their
// docs (Slack, Shopify, Standard Webhooks v1a, the generic HMAC scheme). Every
// scheme accepts the good request and refuses a tampered body, a wrong
// secret, a stale timestamp and a missing header with 401 — and then no
// execution exists beyond the accepted ones.
import { randomBytes, randomUUID } from 'node:crypto';
import test from 'ava';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import {
  countExecutions,
  countSettledExecutions,
  countVisibleExecutions,
  deployFlow,
  flow,
} from '../support/webhook-helpers.ts';
import {
  GENERIC_HMAC,
  genericHmacHeaders,
  signGenericHmac,
  signGithubRequest,
  signShopify,
  signSlack,
  signStandardV1,
  signStandardV1a,
  signStripe,
  standardWebhooksKeyPair,
  standardWebhooksSecret,
  stripeSecret,
  textSecret,
  type Signer,
} from '../support/provider-signers.ts';
import { historyText } from '../support/history-text.ts';

// A name that must be URL-encoded in the path.
const COMPANY = 'Hooks & Co/EU';
const MAX_BODY_BYTES = 64 * 1024;
// Low enough that the flood test reaches it, high enough that no other route does.
const ROUTE_BURST = 40;

let stack: TestStack;

interface Scheme {
  activity: string;
  verify: Record<string, unknown>;
  sign: Signer;
  secret: string;
  /** The header whose absence must be refused. */
  signatureHeader: string;
  /** Schemes that sign a timestamp also refuse a stale one. */
  signsTimestamp: boolean;
  /** A secret of the right format that is not the route's. */
  otherSecret: () => string;
  /** Signs with a key that is not the route's, where the secret is not what signs (v1a: another sender's private key). */
  wrongSign?: Signer;
}

const v1a = standardWebhooksKeyPair();
const otherV1a = standardWebhooksKeyPair();
const schemes: Scheme[] = [
  {
    activity: 'sw.v1',
    verify: { standardWebhooks: {} },
    sign: signStandardV1,
    secret: standardWebhooksSecret(),
    signatureHeader: 'webhook-signature',
    signsTimestamp: true,
    otherSecret: standardWebhooksSecret,
  },
  // v1a: the route stores the public key; "another secret" is another sender's private key.
  {
    activity: 'sw.v1a',
    verify: { standardWebhooks: {} },
    sign: signStandardV1a(v1a.privateKey),
    secret: v1a.publicSecret,
    signatureHeader: 'webhook-signature',
    signsTimestamp: true,
    otherSecret: () => otherV1a.publicSecret,
    wrongSign: signStandardV1a(otherV1a.privateKey),
  },
  {
    activity: 'stripe.events',
    verify: { stripe: {} },
    sign: signStripe,
    secret: stripeSecret(),
    signatureHeader: 'stripe-signature',
    signsTimestamp: true,
    otherSecret: stripeSecret,
  },
  {
    activity: 'github.push',
    verify: { github: {} },
    sign: signGithubRequest,
    secret: textSecret(),
    signatureHeader: 'x-hub-signature-256',
    signsTimestamp: false,
    otherSecret: textSecret,
  },
  {
    activity: 'slack.events',
    verify: { slack: {} },
    sign: signSlack,
    secret: textSecret(),
    signatureHeader: 'x-slack-signature',
    signsTimestamp: true,
    otherSecret: textSecret,
  },
  {
    activity: 'shopify.orders',
    verify: { shopify: {} },
    sign: signShopify,
    secret: textSecret(),
    signatureHeader: 'x-shopify-hmac-sha256',
    signsTimestamp: false,
    otherSecret: textSecret,
  },
  {
    activity: 'generic.hmac',
    verify: { hmac: GENERIC_HMAC },
    sign: signGenericHmac,
    secret: textSecret(),
    signatureHeader: 'x-signature',
    signsTimestamp: true,
    otherSecret: textSecret,
  },
];
// Same schemes on their own routes, for tests that count executions while the matrix runs beside them.
const stripePayments: Scheme = { ...schemes[2]!, activity: 'stripe.payments', secret: stripeSecret() };
const slackChallenges: Scheme = { ...schemes[4]!, activity: 'slack.challenge', secret: textSecret() };
const schemeOf = (activity: string) =>
  [...schemes, stripePayments, slackChallenges].find((scheme) => scheme.activity === activity)!;

// What the echo flows answer: everything the flow sees of the request.
const ECHO_BODY =
  '${ {"body": Trigger.Body, "encoding": Trigger.BodyEncoding, "json": Trigger.Json, "form": Trigger.Form, "headers": Trigger.Headers, ' +
  '"query": Trigger.Query, "method": Trigger.Method, "provider": Trigger.Provider, "payload": Trigger.Payload, "payloadJson": Trigger.PayloadJson, "execution": Execution.Id} }';
const echo = (statusCode = 200) => [
  { respond: { description: 'Echo the request', statusCode, contentType: 'application/json', body: ECHO_BODY } },
];
const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 20 };

const secrets = {
  echo: textSecret(),
  instant: stripeSecret(),
  xml: textSecret(),
  flood: stripeSecret(),
  hidden: textSecret(),
};

test.before(async () => {
  stack = await startStack({
    env: {
      FLOWHOOK_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
      FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE: '1',
      FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE_BURST: String(ROUTE_BURST),
    },
  });
  await stack.admin.createCompany({ name: COMPANY });
  const deploy = async (name: string, webhook: Record<string, unknown>, steps: unknown[], secret?: string) => {
    await deployFlow(stack, flow(COMPANY, name, webhook, steps));
    if (secret) await stack.admin.setHookSecret({ company: COMPANY, activity: String(webhook.activity), secret });
  };
  for (const scheme of [...schemes, stripePayments, slackChallenges])
    await deploy(
      scheme.activity.replace('.', '-'),
      { activity: scheme.activity, direct: { verify: scheme.verify }, ...sync },
      echo(),
      scheme.secret,
    );
  await deploy(
    'echo',
    { activity: 'echo.bodies', direct: { verify: { hmac: GENERIC_HMAC } }, ...sync },
    echo(),
    secrets.echo,
  );
  await deploy(
    'instant',
    {
      activity: 'instant.hook',
      direct: { verify: { stripe: {} } },
      defaultResponseStatusCode: 202,
      defaultResponseContentType: 'text/plain',
    },
    echo(),
    secrets.instant,
  );
  await deploy(
    'xml-answer',
    { activity: 'xml.answer', direct: { verify: { hmac: GENERIC_HMAC } }, ...sync },
    [
      {
        respond: {
          description: 'Answer in XML',
          statusCode: 201,
          contentType: 'application/xml; charset=utf-8',
          body: '<ack id="{{Trigger.Provider.EventId}}">{{Trigger.Form.order}}</ack>',
        },
      },
    ],
    secrets.xml,
  );
  await deploy('flood', { activity: 'flood.guarded', direct: { verify: { stripe: {} } } }, [], secrets.flood);
  await deploy('no-secret', { activity: 'no.secret', direct: { verify: { github: {} } } }, []);
  await deploy(
    'hidden',
    { activity: 'hidden.hook', direct: { verify: { hmac: GENERIC_HMAC } }, doNotLogPayload: true, ...sync },
    [
      {
        name: 'read',
        set: {
          description: 'Read the card',
          variables: { card: '${Trigger.Json.card}', header: '${Trigger.Headers.`x-card-holder`}' },
        },
      },
      {
        respond: {
          description: 'Echo',
          statusCode: 200,
          contentType: 'application/json',
          body: '${ {"card": Variables.card, "holder": Variables.header} }',
        },
      },
    ],
    secrets.hidden,
  );
  await deployFlow(stack, flow(COMPANY, 'odata-only', { activity: 'odata.only' }, []));
});
test.after.always(async () => {
  await stack?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  executionId: string | null;
}

const hookUrl = (activity: string, company = COMPANY, query = '') =>
  `${stack.facadeUrl}/${INSTANCE}/hooks/${encodeURIComponent(company)}/${encodeURIComponent(activity)}${query}`;

async function post(
  activity: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: { query?: string; method?: string; company?: string } = {},
): Promise<Answer> {
  const response = await fetch(hookUrl(activity, options.company, options.query), {
    method: options.method ?? 'POST',
    headers,
    body: options.method === 'GET' ? undefined : body,
  });
  return {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
    executionId: response.headers.get('x-flowhook-execution-id'),
  };
}

async function signedPost(
  activity: string,
  body: string,
  options: {
    wrongKey?: boolean;
    secret?: string;
    timestamp?: number;
    id?: string;
    headers?: Record<string, string>;
    drop?: string;
    sendBody?: string;
  } = {},
): Promise<Answer> {
  const scheme = schemeOf(activity);
  const signer = options.wrongKey ? (scheme.wrongSign ?? scheme.sign) : scheme.sign;
  const secret = options.secret ?? (options.wrongKey ? scheme.otherSecret() : scheme.secret);
  const signed = await signer(body, secret, { timestamp: options.timestamp, id: options.id });
  if (options.drop) delete signed[options.drop];
  return post(activity, options.sendBody ?? body, {
    'content-type': 'application/json',
    ...signed,
    ...options.headers,
  });
}

const UNAUTHORIZED = { error: { code: 'Unauthorized', message: 'Unauthorized' } };
const eventBody = (type = 'payment_intent.succeeded') =>
  JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    type,
    data: { object: { id: `pi_${randomBytes(8).toString('hex')}`, amount: 2000, currency: 'eur' } },
  });

for (const scheme of schemes) {
  test(`${scheme.activity}: the signed request runs the flow; tampered, wrongly signed, stale and unsigned requests get 401 and start nothing`, async (t) => {
    const body = eventBody();
    const good = await signedPost(scheme.activity, body);
    t.is(good.status, 200, good.text);
    t.is(good.headers.get('content-type'), 'application/json');
    const seen = JSON.parse(good.text);
    t.is(seen.body, body);
    t.deepEqual(seen.json, JSON.parse(body));
    t.deepEqual(seen.payload, JSON.parse(body));
    t.is(seen.provider.Scheme, Object.keys(scheme.verify)[0]);
    t.is(seen.execution, good.executionId);
    t.false(scheme.signatureHeader in seen.headers, 'the signature header is withheld from the flow');

    const refusals: [string, Promise<Answer>][] = [
      ['tampered body', signedPost(scheme.activity, body, { sendBody: body.replace('2000', '2001') })],
      ['wrong secret', signedPost(scheme.activity, body, { wrongKey: true })],
      ['missing signature header', signedPost(scheme.activity, body, { drop: scheme.signatureHeader })],
    ];
    if (scheme.signsTimestamp)
      refusals.push([
        'stale timestamp',
        signedPost(scheme.activity, body, { timestamp: Math.floor(Date.now() / 1000) - 3600 }),
      ]);
    for (const [why, pending] of refusals) {
      const refused = await pending;
      t.is(refused.status, 401, `${why}: ${refused.text}`);
      t.deepEqual(JSON.parse(refused.text), UNAUTHORIZED, why);
      t.is(refused.headers.get('www-authenticate'), null, why);
      t.is(refused.executionId, null, why);
    }
    t.is(await countSettledExecutions(stack, scheme.activity, 1), 1, 'only the signed request started an execution');
  });
}

test('a Stripe redelivery of the same event — again, and several at once — joins the one execution and gets the same answer', async (t) => {
  const body = eventBody();
  const first = await signedPost('stripe.payments', body);
  t.is(first.status, 200, first.text);
  // Stripe signs each delivery anew (another timestamp); the event id in the body stays.
  const again = await signedPost('stripe.payments', body, { timestamp: Math.floor(Date.now() / 1000) - 5 });
  t.is(again.status, 200);
  t.is(again.executionId, first.executionId);
  t.is(again.text, first.text);
  const concurrentBody = eventBody();
  const together = await Promise.all(Array.from({ length: 8 }, () => signedPost('stripe.payments', concurrentBody)));
  t.deepEqual(new Set(together.map((answer) => answer.status)), new Set([200]));
  t.is(new Set(together.map((answer) => answer.executionId)).size, 1);
  t.is(new Set(together.map((answer) => answer.text)).size, 1);
  const id = JSON.parse(body).id as string;
  t.is(JSON.parse(first.text).provider.EventId, id);
  // The same event id with another body is not a redelivery: refused, nothing starts.
  const altered = JSON.stringify({ ...JSON.parse(body), type: 'payment_intent.canceled' });
  const reused = await signedPost('stripe.payments', altered);
  t.is(reused.status, 422, reused.text);
  t.is(JSON.parse(reused.text).error.code, 'UnprocessableEntity');
  const handle = stack.temporal.workflow.getHandle(first.executionId!);
  t.is((await handle.describe()).searchAttributes.FlowCaller?.[0], 'provider:stripe');
  t.is(
    await countSettledExecutions(stack, 'stripe.payments', 2),
    2,
    'one execution per event, none for the altered body',
  );
});

test("Slack's url_verification is answered with the challenge after the signature verified, and starts nothing", async (t) => {
  const challenge = `challenge-${randomUUID()}`;
  const body = JSON.stringify({ token: 'legacy', challenge, type: 'url_verification' });
  const answered = await signedPost('slack.challenge', body);
  t.is(answered.status, 200);
  t.is(answered.text, challenge);
  t.regex(answered.headers.get('content-type') ?? '', /^text\/plain/);
  t.is(answered.executionId, null);
  const forged = await signedPost('slack.challenge', body, { wrongKey: true });
  t.is(forged.status, 401, 'an unsigned challenge gets no answer');
  t.is(await countExecutions(stack, 'slack.challenge'), 0);
});

test('both response modes: a respond step is the exact HTTP answer; Instant return answers the default response', async (t) => {
  const form = 'order=A-17&note=r%C3%A9sum%C3%A9';
  const eventId = `evt-${randomUUID()}`;
  const responded = await post('xml.answer', form, {
    'content-type': 'application/x-www-form-urlencoded',
    ...genericHmacHeaders(Buffer.from(form), secrets.xml, { id: eventId }),
  });
  t.is(responded.status, 201);
  t.is(responded.headers.get('content-type'), 'application/xml; charset=utf-8');
  t.is(responded.text, `<ack id="${eventId}">A-17</ack>`);
  t.is(responded.headers.get('x-flowhook-outcome'), 'responded');

  const body = eventBody();
  const instant = await post('instant.hook', body, {
    'content-type': 'application/json',
    ...(await signStripe(body, secrets.instant)),
  });
  t.is(instant.status, 202);
  t.is(instant.headers.get('content-type'), 'text/plain');
  t.is(instant.text, '');
  t.is(instant.headers.get('x-flowhook-outcome'), 'instant-return');
  t.truthy(instant.executionId);
  // The execution is real and runs its (empty-answering) steps in the background.
  await stack.temporal.workflow.getHandle(instant.executionId!).result();
});

test('form, XML, text, JSON and binary bodies reach the flow byte-exact; the flow sees headers without signature or credentials, the query and the method', async (t) => {
  const cases: { contentType: string; body: Buffer; check: (seen: Record<string, unknown>) => void }[] = [
    {
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from('a=1&b=x+y&a=2&c=%E2%9C%93&empty=&__proto__=p'),
      check: (seen) => {
        // A `__proto__` field is plain data: it neither breaks the call nor changes what other fields read.
        t.like(seen.form, { a: ['1', '2'], b: 'x y', c: '✓', empty: '' });
        t.deepEqual(seen.payload, seen.form);
        t.is(seen.json, undefined);
      },
    },
    {
      contentType: 'application/xml',
      body: Buffer.from('<?xml version="1.0"?>\n<order id="1">  <line sku="&amp;x"/>\t</order>\r\n'),
      check: (seen) => t.is(seen.payload, seen.body),
    },
    {
      contentType: 'text/plain; charset=utf-8',
      body: Buffer.from('\uFEFFplain text — ünïcödé 😀\r\n  spaced'),
      check: (seen) => t.is(seen.payload, seen.body),
    },
    {
      contentType: 'application/json',
      body: Buffer.from('{ "big": 12345678901234567890123, "order": {"id": "o-1"} ,"x":1.50 }'),
      check: (seen) => {
        t.is((seen.json as { order: { id: string } }).order.id, 'o-1');
        t.is(seen.payloadJson, seen.body);
      },
    },
  ];
  for (const { contentType, body, check } of cases) {
    const answer = await post(
      'echo.bodies',
      body,
      { 'content-type': contentType, ...genericHmacHeaders(body, secrets.echo) },
      { query: '?tag=a&tag=b&q=hello%20world' },
    );
    t.is(answer.status, 200, answer.text);
    const seen = JSON.parse(answer.text);
    t.is(seen.encoding, 'text', contentType);
    t.true(Buffer.from(seen.body as string, 'utf8').equals(body), `${contentType}: Trigger.Body is the bytes sent`);
    t.deepEqual(seen.query, { tag: ['a', 'b'], q: 'hello world' });
    t.is(seen.method, 'POST');
    check(seen);
  }

  // Bytes that are not UTF-8 arrive as base64 of exactly those bytes.
  const binary = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]), randomBytes(512)]);
  const answer = await post('echo.bodies', binary, {
    'content-type': 'application/octet-stream',
    authorization: 'Bearer should-never-reach-a-flow',
    cookie: 'session=never-either',
    'x-custom-header': 'kept',
    ...genericHmacHeaders(binary, secrets.echo, { id: 'evt-binary-1' }),
  });
  t.is(answer.status, 200, answer.text);
  const seen = JSON.parse(answer.text);
  t.is(seen.encoding, 'base64');
  t.true(Buffer.from(seen.body, 'base64').equals(binary));
  t.is(seen.headers['x-custom-header'], 'kept');
  t.is(seen.headers['content-type'], 'application/octet-stream');
  for (const withheld of ['x-signature', 'x-timestamp', 'authorization', 'cookie'])
    t.false(withheld in seen.headers, withheld);
  t.deepEqual(seen.provider, { Scheme: 'hmac', EventId: 'evt-binary-1' });
});

test('404 for a flow without a direct route and for unknown routes (one answer for all); 405 for other methods; 413 past the body limit', async (t) => {
  const body = '{}';
  const headers = { 'content-type': 'application/json', ...genericHmacHeaders(Buffer.from(body), secrets.echo) };
  const notFound = [
    await post('odata.only', body, headers),
    await post('no.such.activity', body, headers),
    await post('echo.bodies', body, headers, { company: 'No Such Company' }),
  ];
  for (const answer of notFound) {
    t.is(answer.status, 404);
    t.is(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    t.deepEqual(JSON.parse(answer.text), { error: { code: 'NotFound', message: 'No provider route at this address' } });
  }
  const get = await post('echo.bodies', '', {}, { method: 'GET' });
  t.is(get.status, 405);
  t.is(get.headers.get('allow'), 'POST');
  t.is(JSON.parse(get.text).error.code, 'MethodNotAllowed');
  const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x61);
  const tooLarge = await post('echo.bodies', big, {
    'content-type': 'text/plain',
    ...genericHmacHeaders(big, secrets.echo),
  });
  t.is(tooLarge.status, 413);
  t.is(JSON.parse(tooLarge.text).error.code, 'PayloadTooLarge');
  // A direct route without a hook secret refuses (the operator's log line says which command sets one).
  const noSecret = await post('no.secret', body, {
    'content-type': 'application/json',
    'x-hub-signature-256': 'sha256=00',
  });
  t.is(noSecret.status, 401);
  t.is(await countExecutions(stack, 'no.secret'), 0);
});

test('the route limit applies before verification: an unsigned flood gets 429 with Retry-After once over it, and nothing starts', async (t) => {
  // All at once, so the route's budget (a burst of ROUTE_BURST, one more per second) is spent within
  // moments however loaded the machine is; the bounds below allow for what refilled meanwhile.
  const UNSIGNED = ROUTE_BURST + 20;
  const SIGNED = 5;
  const unsigned = () =>
    post('flood.guarded', '{"id": "evt_flood"}', {
      'content-type': 'application/json',
      'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    });
  // Correctly signed calls sent last, each its own event: they are limited like the rest once the budget is spent.
  const signed = async () => {
    const body = eventBody();
    return post('flood.guarded', body, {
      'content-type': 'application/json',
      ...(await signStripe(body, secrets.flood)),
    });
  };
  const started = Date.now();
  const answers = await Promise.all([
    ...Array.from({ length: UNSIGNED }, unsigned),
    ...Array.from({ length: SIGNED }, signed),
  ]);
  const refilled = Math.ceil((Date.now() - started) / 1000) + 1;
  const statuses = answers.map((answer) => answer.status);
  const unsignedStatuses = statuses.slice(0, UNSIGNED);
  const admittedSigned = statuses.slice(UNSIGNED).filter((status) => status !== 429);

  t.true(
    unsignedStatuses.every((status) => status === 401 || status === 429),
    statuses.join(','),
  );
  const verified = statuses.filter((status) => status !== 429).length;
  t.true(
    verified >= ROUTE_BURST && verified <= ROUTE_BURST + refilled,
    `${verified} verified of ${statuses.length} (burst ${ROUTE_BURST}, ${refilled} refilled at most): ${statuses.join(',')}`,
  );
  t.true(
    statuses.slice(UNSIGNED).some((status) => status === 429),
    `a signed call is limited too: ${statuses.join(',')}`,
  );
  t.true(
    admittedSigned.every((status) => status === 200),
    statuses.join(','),
  );
  t.regex(answers.find((answer) => answer.status === 429)?.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
  // Refused calls start nothing: only the signed calls that were admitted ran.
  t.is(await countVisibleExecutions(stack, 'flood.guarded', admittedSigned.length), admittedSigned.length);
});

test('doNotLogPayload: the flow reads body and headers, but the history shows neither (nor the event id); other flows stay readable', async (t) => {
  const card = `CARD-${randomBytes(8).toString('hex')}`;
  const holder = `HOLDER-${randomBytes(8).toString('hex')}`;
  const eventId = `EVT-${randomBytes(8).toString('hex')}`;
  const body = JSON.stringify({ card });
  const hidden = await post(
    'hidden.hook',
    body,
    {
      'content-type': 'application/json',
      'x-card-holder': holder,
      ...genericHmacHeaders(Buffer.from(body), secrets.hidden, { id: eventId }),
    },
    { query: `?ref=${holder}` },
  );
  t.is(hidden.status, 200, hidden.text);
  t.deepEqual(JSON.parse(hidden.text), { card, holder });
  // The engine's client: it has the payload codec that decrypts this execution's result.
  await stack.engine.client.workflow.getHandle(hidden.executionId!).result();
  const history = await historyText(hidden.executionId!);
  t.true(history.includes('binary/encrypted'));
  for (const secret of [card, holder, eventId])
    t.false(history.includes(secret), `${secret.split('-')[0]} is not in the history`);

  const visibleCard = `CARD-${randomBytes(8).toString('hex')}`;
  const visibleBody = JSON.stringify({ card: visibleCard });
  const visible = await post('echo.bodies', visibleBody, {
    'content-type': 'application/json',
    ...genericHmacHeaders(Buffer.from(visibleBody), secrets.echo),
  });
  t.is(visible.status, 200);
  await stack.temporal.workflow.getHandle(visible.executionId!).result();
  const visibleHistory = await historyText(visible.executionId!);
  t.true(visibleHistory.includes(visibleCard), 'without the flag the body is readable');
  t.false(visibleHistory.includes(secrets.echo), 'never the hook secret');
});
