// What every scheme shares: the dispatcher, the withheld headers, the route
// tolerance, secret checks for `hook-secret set`, and hostile input answered
// with a refusal, never an exception.
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { createHmac } from 'node:crypto';
import { DirectRouteSchema, type DirectVerificationJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import {
  DEFAULT_TOLERANCE_SECONDS,
  DIRECT_SCHEME_NAMES,
  hookSecretProblem,
  schemeOf,
  verifyDirectRequest,
  withheldHeaders,
  type DirectSchemeName,
} from '../../engine/domain/direct/verification/index.ts';
import { DIRECT_SCHEMES, hasSignedTimestamp } from '../../flow/verification-schemes/scheme-registry.ts';

const NOW = Date.UTC(2026, 10, 23, 18, 0, 0);
const HMAC = {
  header: 'X-Sig',
  signedContent: '{id}.{timestamp}.{body}',
  timestampHeader: 'X-Ts',
  eventIdHeader: 'X-Id',
};
const VERIFICATIONS: Record<DirectSchemeName, DirectVerificationJson> = {
  standardWebhooks: { standardWebhooks: {} },
  stripe: { stripe: {} },
  github: { github: {} },
  slack: { slack: {} },
  shopify: { shopify: {} },
  hmac: { hmac: HMAC },
};
const routeOf = (name: DirectSchemeName, toleranceSeconds?: number) =>
  fromJson(DirectRouteSchema, {
    verify: VERIFICATIONS[name],
    ...(toleranceSeconds !== undefined ? { toleranceSeconds } : {}),
  });

test('every scheme of the proto oneof is registered under its case name', (t) => {
  t.deepEqual([...DIRECT_SCHEME_NAMES].sort(), Object.keys(VERIFICATIONS).sort());
  // The schemes' facts and publish checks (flow/verification-schemes/) list the same ones, in the same order.
  t.deepEqual(DIRECT_SCHEME_NAMES, Object.keys(DIRECT_SCHEMES));
  for (const name of DIRECT_SCHEME_NAMES) t.is(schemeOf(routeOf(name)), name);
});

/** A request each scheme verifies (VERIFICATIONS' settings), signed with `secret` at NOW. */
function signedRequest(name: DirectSchemeName, secret: string, body: string) {
  const seconds = String(Math.floor(NOW / 1000));
  const mac = (key: string | Buffer, content: string) => createHmac('sha256', key).update(content);
  const headers: Record<DirectSchemeName, Record<string, string>> = {
    standardWebhooks: {
      'webhook-id': 'msg_1',
      'webhook-timestamp': seconds,
      'webhook-signature': `v1,${mac(Buffer.from(secret.slice('whsec_'.length), 'base64'), `msg_1.${seconds}.${body}`).digest('base64')}`,
    },
    stripe: { 'stripe-signature': `t=${seconds},v1=${mac(secret, `${seconds}.${body}`).digest('hex')}` },
    github: { 'x-hub-signature-256': `sha256=${mac(secret, body).digest('hex')}` },
    slack: {
      'x-slack-request-timestamp': seconds,
      'x-slack-signature': `v0=${mac(secret, `v0:${seconds}:${body}`).digest('hex')}`,
    },
    shopify: { 'x-shopify-hmac-sha256': mac(secret, body).digest('base64') },
    hmac: { 'x-id': 'evt-1', 'x-ts': seconds, 'x-sig': mac(secret, `evt-1.${seconds}.${body}`).digest('hex') },
  };
  return { headers: new Map(Object.entries(headers[name])), body: Buffer.from(body), nowMs: NOW };
}

test("a scheme's facts say whether its signature covers a timestamp, as its verifier finds", (t) => {
  const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0';
  for (const name of DIRECT_SCHEME_NAMES) {
    const outcome = verifyDirectRequest(
      routeOf(name),
      { current: secret },
      signedRequest(name, secret, '{"id":"evt_1"}'),
    );
    if (!outcome.ok) return t.fail(`${name}: ${outcome.reason}`);
    t.is(outcome.delivery.signedTimestamp, hasSignedTimestamp(name, VERIFICATIONS[name][name]!), name);
  }
  // hmac: as its settings say.
  const untimed = { header: 'X-Sig' };
  const outcome = verifyDirectRequest(
    fromJson(DirectRouteSchema, { verify: { hmac: untimed } }),
    { current: secret },
    {
      headers: new Map([['x-sig', createHmac('sha256', secret).update('hello').digest('hex')]]),
      body: Buffer.from('hello'),
      nowMs: NOW,
    },
  );
  t.like(outcome, { ok: true, delivery: { signedTimestamp: false } });
  t.false(hasSignedTimestamp('hmac', untimed));
});

test('a route without a scheme is a programming error, not a refusal', (t) => {
  const route = fromJson(DirectRouteSchema, {});
  t.throws(() => schemeOf(route));
  t.throws(() =>
    verifyDirectRequest(route, { current: 's' }, { headers: new Map(), body: new Uint8Array(), nowMs: NOW }),
  );
});

test("withheld headers: each scheme's signature and timestamp headers plus credentials, never the event id", (t) => {
  const expected: Record<DirectSchemeName, string[]> = {
    standardWebhooks: ['webhook-signature', 'webhook-timestamp'],
    stripe: ['stripe-signature'],
    github: ['x-hub-signature', 'x-hub-signature-256'],
    slack: ['x-slack-request-timestamp', 'x-slack-signature'],
    shopify: ['shopify-hmac-sha256', 'x-shopify-hmac-sha256'],
    hmac: ['x-sig', 'x-ts'],
  };
  for (const name of DIRECT_SCHEME_NAMES) {
    t.deepEqual(
      [...withheldHeaders(routeOf(name))].sort(),
      [...expected[name], 'authorization', 'cookie', 'proxy-authorization'].sort(),
      name,
    );
  }
});

test("the route's toleranceSeconds replaces the default; out-of-range values fall back to it", (t) => {
  t.is(DEFAULT_TOLERANCE_SECONDS, 300);
  const secret = 'slack-secret';
  const signedAt = (ageSeconds: number) => {
    const seconds = String(Math.floor(NOW / 1000) - ageSeconds);
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${seconds}:hello`).digest('hex')}`;
    return {
      headers: new Map([
        ['x-slack-request-timestamp', seconds],
        ['x-slack-signature', signature],
      ]),
      body: Buffer.from('hello'),
      nowMs: NOW,
    };
  };
  t.like(verifyDirectRequest(routeOf('slack', 60), { current: secret }, signedAt(61)), {
    ok: false,
    reason: 'stale_timestamp',
  });
  t.like(verifyDirectRequest(routeOf('slack', 60), { current: secret }, signedAt(60)), { ok: true });
  t.like(verifyDirectRequest(routeOf('slack', 3600), { current: secret }, signedAt(3000)), { ok: true });
  for (const outOfRange of [0, -5, 3601]) {
    t.like(
      verifyDirectRequest(routeOf('slack', outOfRange), { current: secret }, signedAt(299)),
      { ok: true },
      `${outOfRange}`,
    );
    t.like(
      verifyDirectRequest(routeOf('slack', outOfRange), { current: secret }, signedAt(301)),
      { ok: false, reason: 'stale_timestamp' },
      `${outOfRange}`,
    );
  }
});

test('hookSecretProblem catches pasted mistakes per scheme', (t) => {
  t.is(hookSecretProblem('standardWebhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), undefined);
  t.is(hookSecretProblem('standardWebhooks', `whpk_${Buffer.alloc(32, 7).toString('base64')}`), undefined);
  t.regex(hookSecretProblem('standardWebhooks', `whsk_${Buffer.alloc(64, 7).toString('base64')}`) ?? '', /private key/);
  t.regex(hookSecretProblem('standardWebhooks', 'whpk_AAAA') ?? '', /32-byte/);
  t.regex(hookSecretProblem('standardWebhooks', 'hunter2!') ?? '', /whsec_/);
  t.regex(hookSecretProblem('standardWebhooks', 'whsec_not base64') ?? '', /base64/);
  t.is(hookSecretProblem('stripe', 'whsec_abc123'), undefined);
  t.regex(hookSecretProblem('stripe', 'sk_live_123') ?? '', /whsec_/);
  for (const name of ['github', 'slack', 'shopify', 'hmac'] as const) {
    t.is(hookSecretProblem(name, 'any text at all'), undefined, name);
    t.regex(hookSecretProblem(name, 'secret\n') ?? '', /whitespace/, name);
    t.regex(hookSecretProblem(name, '') ?? '', /empty/, name);
  }
});

/** Every header any scheme reads, filled with arbitrary text (or left out). */
const HEADER_NAMES = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'stripe-signature',
  'x-hub-signature-256',
  'x-github-delivery',
  'x-slack-signature',
  'x-slack-request-timestamp',
  'x-shopify-hmac-sha256',
  'shopify-hmac-sha256',
  'x-shopify-webhook-id',
  'x-sig',
  'x-ts',
  'x-id',
];
const hostileValue = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(
    't=1,v1=',
    'v1,',
    'v1a,',
    'v0=',
    'sha256=',
    ',,,',
    ' ',
    '=',
    't=99999999999999999999,v1=00',
    `t=${Math.floor(NOW / 1000)},v1=${'0'.repeat(64)}`,
  ),
  fc
    .array(fc.constantFrom('v1,', 'v1a,', 'AAAA', '=', ' ', ',', 't=', 'v1='), { maxLength: 40 })
    .map((parts) => parts.join('')),
);

test('property: hostile headers and bodies are refused with a reason from the closed set, never thrown, never verified', (t) => {
  const reasons = new Set(['missing_header', 'malformed_header', 'stale_timestamp', 'signature_mismatch']);
  fc.assert(
    fc.property(
      fc.constantFrom(...DIRECT_SCHEME_NAMES),
      fc.dictionary(fc.constantFrom(...HEADER_NAMES), hostileValue),
      fc.uint8Array({ maxLength: 300 }),
      (name, headers, body) => {
        const outcome = verifyDirectRequest(
          routeOf(name),
          { current: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', previous: 'other' },
          { headers: new Map(Object.entries(headers)), body, nowMs: NOW },
        );
        return (
          !outcome.ok &&
          outcome.scheme === name &&
          reasons.has(outcome.reason) &&
          Object.keys(outcome).sort().join() === 'ok,reason,scheme'
        );
      },
    ),
    { numRuns: 2000 },
  );
  t.pass();
});
