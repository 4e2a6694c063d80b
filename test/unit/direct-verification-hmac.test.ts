// The generic `hmac` scheme, described field by field as a flow file would.
// No provider library exists for "any HMAC sender", so requests are signed
// here with node:crypto from the description's own words.
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { createHmac } from 'node:crypto';
import {
  DirectRouteSchema,
  HmacVerificationSchema,
  type HmacVerificationJson,
} from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import {
  hmacConfigProblem,
  verifyDirectRequest,
  withheldHeaders,
  type HookSecrets,
} from '../../engine/domain/direct/verification/index.ts';
import { validateFlow } from '../../flow/index.ts';

const NOW = Date.UTC(2026, 10, 23, 18, 0, 0);
const SECONDS = String(Math.floor(NOW / 1000));
const BODY = '<order id="42"><total>9.99</total></order>';
const CURRENT = 'generic-current-secret';
const PREVIOUS = 'generic-previous-secret';

const routeOf = (hmac: HmacVerificationJson, toleranceSeconds?: number) =>
  fromJson(DirectRouteSchema, { verify: { hmac }, ...(toleranceSeconds ? { toleranceSeconds } : {}) });

function mac(algorithm: string, secret: string, content: string | Buffer, encoding: 'hex' | 'base64'): string {
  return createHmac(algorithm, secret).update(content).digest(encoding);
}

function verify(
  hmac: HmacVerificationJson,
  secrets: HookSecrets,
  headers: Record<string, string>,
  body: string | Uint8Array = BODY,
  nowMs = NOW,
) {
  return verifyDirectRequest(routeOf(hmac), secrets, {
    headers: new Map(Object.entries(headers)),
    body: typeof body === 'string' ? Buffer.from(body) : body,
    nowMs,
  });
}

/** Each description with a signer that follows it: the cases every configuration must pass. */
const CONFIGURATIONS: {
  name: string;
  hmac: HmacVerificationJson;
  sign: (secret: string, body: string, seconds: string, id: string) => Record<string, string>;
  timestamped: boolean;
}[] = [
  {
    name: 'defaults: sha256, hex, the body alone',
    hmac: { header: 'X-Signature' },
    sign: (secret, body) => ({ 'x-signature': mac('sha256', secret, body, 'hex') }),
    timestamped: false,
  },
  {
    name: 'sha1, base64, with a prefix',
    hmac: { header: 'X-Hub-Signature', algorithm: 'sha1', encoding: 'base64', prefix: 'sha1=' },
    sign: (secret, body) => ({ 'x-hub-signature': `sha1=${mac('sha1', secret, body, 'base64')}` }),
    timestamped: false,
  },
  {
    name: 'sha512, hex, {timestamp}.{body}',
    hmac: {
      header: 'X-Webhook-Signature',
      algorithm: 'sha512',
      signedContent: '{timestamp}.{body}',
      timestampHeader: 'X-Webhook-Timestamp',
    },
    sign: (secret, body, seconds) => ({
      'x-webhook-timestamp': seconds,
      'x-webhook-signature': mac('sha512', secret, `${seconds}.${body}`, 'hex'),
    }),
    timestamped: true,
  },
  {
    name: 'sha256, base64, prefix, {id}:{timestamp}:{body}',
    hmac: {
      header: 'Signature',
      encoding: 'base64',
      prefix: 'v1=',
      signedContent: '{id}:{timestamp}:{body}',
      timestampHeader: 'Signature-Timestamp',
      eventIdHeader: 'Event-Id',
    },
    sign: (secret, body, seconds, id) => ({
      'event-id': id,
      'signature-timestamp': seconds,
      signature: `v1=${mac('sha256', secret, `${id}:${seconds}:${body}`, 'base64')}`,
    }),
    timestamped: true,
  },
];

for (const configuration of CONFIGURATIONS) {
  const { hmac, sign } = configuration;
  const good = sign(CURRENT, BODY, SECONDS, 'evt-1');
  const signatureHeader = hmac.header!.toLowerCase();

  test(`${configuration.name}: the good request verifies; tampering and a wrong secret do not`, (t) => {
    const expectedId = hmac.eventIdHeader ? 'evt-1' : undefined;
    t.like(
      verify(hmac, { current: CURRENT }, good),
      expectedId ? { ok: true, scheme: 'hmac', eventId: expectedId } : { ok: true, scheme: 'hmac' },
    );
    if (!expectedId) t.false('eventId' in verify(hmac, { current: CURRENT }, good));
    t.like(verify(hmac, { current: CURRENT }, good, `${BODY} `), { ok: false, reason: 'signature_mismatch' });
    t.like(verify(hmac, { current: 'wrong' }, good), { ok: false, reason: 'signature_mismatch' });
  });

  test(`${configuration.name}: the previous secret verifies during its overlap, also alone, and not once it is gone`, (t) => {
    const signedWithPrevious = sign(PREVIOUS, BODY, SECONDS, 'evt-1');
    t.like(verify(hmac, { current: CURRENT, previous: PREVIOUS }, signedWithPrevious), { ok: true });
    t.like(verify(hmac, { current: CURRENT }, signedWithPrevious), { ok: false, reason: 'signature_mismatch' });
  });

  test(`${configuration.name}: missing and malformed signature headers`, (t) => {
    const { [signatureHeader]: signature, ...without } = good;
    t.like(verify(hmac, { current: CURRENT }, without), { ok: false, reason: 'missing_header' });
    for (const value of [signature!.slice(0, -2), `${signature}00`, `${signature!.slice(0, -3)}!!!`, ` ${signature}`]) {
      t.like(
        verify(hmac, { current: CURRENT }, { ...good, [signatureHeader]: value }),
        { ok: false, reason: 'malformed_header' },
        value,
      );
    }
  });

  test(`${configuration.name}: property: changing any single byte of the body is refused`, (t) => {
    const body = Buffer.from(BODY);
    fc.assert(
      fc.property(fc.nat({ max: body.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
        const changed = Buffer.from(body);
        changed[index] = (changed[index]! + delta) % 256;
        const outcome = verify(hmac, { current: CURRENT }, good, changed);
        return !outcome.ok && outcome.reason === 'signature_mismatch';
      }),
    );
    t.pass();
  });

  if (configuration.timestamped) {
    test(`${configuration.name}: a timestamp beyond the tolerance, past or future, is stale; a missing one is missing`, (t) => {
      for (const offsetSeconds of [-301, 301]) {
        const seconds = String(Number(SECONDS) + offsetSeconds);
        t.like(
          verify(hmac, { current: CURRENT }, sign(CURRENT, BODY, seconds, 'evt-1')),
          { ok: false, reason: 'stale_timestamp' },
          `offset ${offsetSeconds}`,
        );
      }
      const timestampHeader = hmac.timestampHeader!.toLowerCase();
      const { [timestampHeader]: _, ...without } = good;
      t.like(verify(hmac, { current: CURRENT }, without), { ok: false, reason: 'missing_header' });
      t.like(verify(hmac, { current: CURRENT }, { ...good, [timestampHeader]: String(Number(SECONDS) - 1) }), {
        ok: false,
        reason: 'signature_mismatch',
      });
      t.like(verify(hmac, { current: CURRENT }, { ...good, [timestampHeader]: `${SECONDS}.5` }), {
        ok: false,
        reason: 'malformed_header',
      });
    });
  }
}

test("a signed {id}: its header is required, a changed id does not verify, and an id holding the template's separators is malformed", (t) => {
  const [, , , withId] = CONFIGURATIONS;
  const good = withId!.sign(CURRENT, BODY, SECONDS, 'evt-1');
  const { 'event-id': _, ...without } = good;
  t.like(verify(withId!.hmac, { current: CURRENT }, without), { ok: false, reason: 'missing_header' });
  t.like(verify(withId!.hmac, { current: CURRENT }, { ...good, 'event-id': 'evt-2' }), {
    ok: false,
    reason: 'signature_mismatch',
  });
  // `evt:1` could shift the `{id}:{timestamp}:` boundaries against each other.
  t.like(verify(withId!.hmac, { current: CURRENT }, withId!.sign(CURRENT, BODY, SECONDS, 'evt:1')), {
    ok: false,
    reason: 'malformed_header',
  });
});

test('an unsigned event id header is the event id when usable, and absent otherwise; the delivery is known by the signed body either way', (t) => {
  const hmac = { header: 'X-Signature', eventIdHeader: 'X-Delivery' };
  const signature = mac('sha256', CURRENT, BODY, 'hex');
  const delivery = { signedContent: [Buffer.from(BODY)], signedTimestamp: false };
  t.deepEqual(verify(hmac, { current: CURRENT }, { 'x-signature': signature, 'x-delivery': 'd-77' }), {
    ok: true,
    scheme: 'hmac',
    eventId: 'd-77',
    delivery,
  });
  t.deepEqual(verify(hmac, { current: CURRENT }, { 'x-signature': signature }), { ok: true, scheme: 'hmac', delivery });
  t.deepEqual(verify(hmac, { current: CURRENT }, { 'x-signature': signature, 'x-delivery': 'two words' }), {
    ok: true,
    scheme: 'hmac',
    delivery,
  });
});

test('delivery keys: a signed {id} is the key; without {id} the key is every part the signature covered, timestamp included', (t) => {
  const [defaults, , timestamped, withId] = CONFIGURATIONS;
  t.like(verify(withId!.hmac, { current: CURRENT }, withId!.sign(CURRENT, BODY, SECONDS, 'evt-1')), {
    ok: true,
    eventId: 'evt-1',
    delivery: { signedEventId: 'evt-1', signedTimestamp: true },
  });
  const signedBody = verify(defaults!.hmac, { current: CURRENT }, defaults!.sign(CURRENT, BODY, SECONDS, ''));
  t.deepEqual(signedBody.ok && signedBody.delivery, { signedContent: [Buffer.from(BODY)], signedTimestamp: false });
  // The timestamped template with an unsigned id header: another id, the same key; the parts hash to the signature.
  const hmac = { ...timestamped!.hmac, eventIdHeader: 'X-Event-Id' };
  const headers = timestamped!.sign(CURRENT, BODY, SECONDS, '');
  const keys = ['e-1', 'e-2', undefined]
    .map((id) => verify(hmac, { current: CURRENT }, id ? { ...headers, 'x-event-id': id } : headers))
    .map((outcome) => outcome.ok && outcome.delivery);
  for (const key of keys) t.deepEqual(key, { signedContent: [SECONDS, '.', Buffer.from(BODY)], signedTimestamp: true });
  const parts = (keys[0] as { signedContent: readonly (string | Uint8Array)[] }).signedContent;
  t.is(
    parts.reduce((digest, part) => digest.update(part), createHmac('sha512', CURRENT)).digest('hex'),
    headers['x-webhook-signature'],
  );
});

test('the route tolerance applies to the timestamp', (t) => {
  const [, , timestamped] = CONFIGURATIONS;
  const seconds = String(Number(SECONDS) - 20);
  const headers = timestamped!.sign(CURRENT, BODY, seconds, '');
  const request = { headers: new Map(Object.entries(headers)), body: Buffer.from(BODY), nowMs: NOW };
  t.like(verifyDirectRequest(routeOf(timestamped!.hmac, 10), { current: CURRENT }, request), {
    ok: false,
    reason: 'stale_timestamp',
  });
  t.like(verifyDirectRequest(routeOf(timestamped!.hmac, 30), { current: CURRENT }, request), { ok: true });
});

test('hmacConfigProblem names what publish validation must refuse, and accepts the documented shapes', (t) => {
  for (const { hmac } of CONFIGURATIONS) t.is(hmacConfigProblem(fromJson(HmacVerificationSchema, hmac)), undefined);
  const problems: [HmacVerificationJson, RegExp][] = [
    [{}, /header is required/],
    [{ header: 'X-S', algorithm: 'md5' }, /algorithm/],
    [{ header: 'X-S', algorithm: 'SHA256' }, /algorithm/],
    [{ header: 'X-S', encoding: 'base32' }, /encoding/],
    [{ header: 'X-S', signedContent: '{timestamp}' }, /\{body\}/],
    [{ header: 'X-S', signedContent: '{body}{nonce}' }, /placeholders/],
    [{ header: 'X-S', signedContent: '{body' }, /placeholders/],
    [{ header: 'X-S', signedContent: '{timestamp}.{body}' }, /timestampHeader is required/],
    [{ header: 'X-S', signedContent: '{id}.{body}' }, /eventIdHeader is required/],
    [{ header: 'X-S', timestampHeader: 'X-T' }, /unsigned/],
    [{ header: 'X-S', signedContent: '{id}{body}', eventIdHeader: 'X-I' }, /side by side/],
    [{ header: 'X-S', signedContent: '{timestamp}0{body}', timestampHeader: 'X-T' }, /only digits/],
  ];
  for (const [hmac, problem] of problems) {
    t.regex(hmacConfigProblem(fromJson(HmacVerificationSchema, hmac)) ?? '', problem, JSON.stringify(hmac));
  }
});

/** What publishing says about a flow whose route uses this description. */
function publishErrors(hmac: HmacVerificationJson): string[] {
  const flow = {
    company: 'C',
    name: 'f',
    trigger: { webhook: { activity: 'a.b', direct: { verify: { hmac } } } },
    steps: [{ log: { message: 'hi' } }],
  };
  return validateFlow(flow as never).errors;
}

test('property: every description publishing accepts is one verification can use (no published route throws)', (t) => {
  const header = fc.constantFrom('', 'X-Sig', 'x-sig', 'X-Ts', 'X-Id', 'Signature');
  const description = fc.record(
    {
      header,
      algorithm: fc.constantFrom('', 'sha1', 'sha256', 'sha512', 'SHA256', 'md5'),
      encoding: fc.constantFrom('', 'hex', 'base64', 'base32'),
      prefix: fc.constantFrom('', 'sha256=', 'v1='),
      signedContent: fc
        .array(fc.constantFrom('{body}', '{timestamp}', '{id}', '.', ':', '{', '}', '{nonce}', 'v0'), { maxLength: 5 })
        .map((parts) => parts.join('')),
      timestampHeader: header,
      eventIdHeader: header,
    },
    { requiredKeys: [] },
  );
  let accepted = 0;
  fc.assert(
    fc.property(description, (hmac) => {
      if (publishErrors(hmac).length > 0) return true;
      accepted++;
      return hmacConfigProblem(fromJson(HmacVerificationSchema, hmac)) === undefined;
    }),
    { numRuns: 3000 },
  );
  // The property means nothing unless some descriptions were publishable.
  t.true(accepted > 50, `${accepted} publishable descriptions`);
});

test('a description publish validation refuses throws instead of verifying anything', (t) => {
  t.throws(() => verify({ header: 'X-S', algorithm: 'md5' }, { current: CURRENT }, { 'x-s': 'ab' }), {
    message: /invalid hmac verification/,
  });
});

test('the signature and timestamp headers are withheld from the flow, lower-cased', (t) => {
  const [, , timestamped] = CONFIGURATIONS;
  t.deepEqual([...withheldHeaders(routeOf(timestamped!.hmac))].sort(), [
    'authorization',
    'cookie',
    'proxy-authorization',
    'x-webhook-signature',
    'x-webhook-timestamp',
  ]);
});
