// Stripe signatures made by Stripe's own library
// (`Stripe.webhooks.generateTestHeaderString`), which signs `{t}.{payload}`
// with the whole `whsec_…` secret and writes `t=…,v1=…`.
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { createHmac, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { DirectRouteSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { verifyDirectRequest, type HookSecrets } from '../../engine/domain/direct/verification/index.ts';

const NOW = Date.now();
const route = fromJson(DirectRouteSchema, { verify: { stripe: {} } });
const EVENT = JSON.stringify(
  {
    id: 'evt_1QxYz2AbCdEf',
    object: 'event',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_1', amount: 2000 } },
  },
  null,
  2,
);

const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;
const CURRENT = newSecret();
const PREVIOUS = newSecret();

function stripeHeader(secret: string, atMs = NOW, payload = EVENT): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(atMs / 1000) });
}

function verify(secrets: HookSecrets, signature: string | undefined, body: string | Uint8Array = EVENT, nowMs = NOW) {
  const headers = new Map([['content-type', 'application/json; charset=utf-8']]);
  if (signature !== undefined) headers.set('stripe-signature', signature);
  return verifyDirectRequest(route, secrets, {
    headers,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    nowMs,
  });
}

/** The v1 value of a library header. */
const v1Of = (header: string) =>
  header
    .split(',')
    .find((item) => item.startsWith('v1='))!
    .slice(3);

test('a Stripe-signed event verifies, with the body id as the event id', (t) => {
  const header = stripeHeader(CURRENT);
  // The id is inside the signed body and a redelivery keeps it: it identifies the delivery.
  t.deepEqual(verify({ current: CURRENT }, header), {
    ok: true,
    scheme: 'stripe',
    eventId: 'evt_1QxYz2AbCdEf',
    delivery: { signedEventId: 'evt_1QxYz2AbCdEf', signedTimestamp: true },
  });
  // Stripe's own verification accepts the same request.
  t.notThrows(() => Stripe.webhooks.constructEvent(EVENT, header, CURRENT));
});

test('a verified body that is no JSON object, or has no string id, has no event id and is known by exactly what was signed', (t) => {
  for (const body of ['plain text', '[1,2]', '{"id":42}', '{"id":"has space"}']) {
    const header = stripeHeader(CURRENT, NOW, body);
    const delivery = { signedContent: [`${Math.floor(NOW / 1000)}.`, Buffer.from(body)], signedTimestamp: true };
    t.deepEqual(verify({ current: CURRENT }, header, body), { ok: true, scheme: 'stripe', delivery }, body);
    t.is(
      delivery.signedContent.reduce((hmac, part) => hmac.update(part), createHmac('sha256', CURRENT)).digest('hex'),
      v1Of(header),
      body,
    );
  }
});

test('a tampered body, a wrong secret and a changed t are signature mismatches', (t) => {
  const header = stripeHeader(CURRENT);
  t.like(verify({ current: CURRENT }, header, EVENT.replace('2000', '20000')), {
    ok: false,
    reason: 'signature_mismatch',
  });
  t.like(verify({ current: newSecret() }, header), { ok: false, reason: 'signature_mismatch' });
  const shifted = header.replace(/^t=(\d+)/, (_, t: string) => `t=${Number(t) - 1}`);
  t.like(verify({ current: CURRENT }, shifted), { ok: false, reason: 'signature_mismatch' });
  // The secret is used as text: its base64 part decoded would be another key.
  t.like(verify({ current: CURRENT.slice('whsec_'.length) }, header), { ok: false, reason: 'signature_mismatch' });
});

test('t older or further in the future than the tolerance is stale', (t) => {
  for (const offsetSeconds of [-301, 301, -86_400]) {
    const at = NOW + offsetSeconds * 1000;
    t.like(
      verify({ current: CURRENT }, stripeHeader(CURRENT, at)),
      { ok: false, reason: 'stale_timestamp' },
      `offset ${offsetSeconds}`,
    );
  }
  t.like(verify({ current: CURRENT }, stripeHeader(CURRENT, NOW - 300_000)), { ok: true });
});

test('a missing or empty Stripe-Signature is missing', (t) => {
  t.like(verify({ current: CURRENT }, undefined), { ok: false, reason: 'missing_header' });
  t.like(verify({ current: CURRENT }, ''), { ok: false, reason: 'missing_header' });
});

test('malformed Stripe-Signature values are refused as malformed', (t) => {
  const header = stripeHeader(CURRENT);
  const v1 = v1Of(header);
  const t0 = Math.floor(NOW / 1000);
  const cases = [
    `v1=${v1}`, // no t
    `t=${t0}`, // no v1
    `t=${t0},v0=${v1}`, // only the legacy scheme
    `t=${t0},t=${t0},v1=${v1}`,
    `t=soon,v1=${v1}`,
    `t=${t0},v1=${v1.slice(2)}`,
    `t=${t0},v1=${v1.slice(0, -1)}z`,
    `t=${t0},garbage,v1=${v1}`,
    `t=${t0},v1=${v1},`,
    `t=${t0},${Array.from({ length: 17 }, () => `v1=${v1}`).join(',')}`,
  ];
  for (const value of cases) {
    t.like(verify({ current: CURRENT }, value), { ok: false, reason: 'malformed_header' }, value.slice(0, 50));
  }
});

test('several v1 signatures (Stripe rolling its secret) verify when one matches; v0 and unknown keys are ignored', (t) => {
  const t0 = Math.floor(NOW / 1000);
  const mine = v1Of(stripeHeader(CURRENT));
  const other = v1Of(stripeHeader(newSecret()));
  t.like(verify({ current: CURRENT }, `t=${t0},v1=${other},v1=${mine}`), { ok: true, eventId: 'evt_1QxYz2AbCdEf' });
  t.like(verify({ current: CURRENT }, `t=${t0},v1=${mine},v0=${other},x=y`), { ok: true });
  t.like(verify({ current: CURRENT }, `t=${t0}, v1=${mine}`), { ok: true });
  t.like(verify({ current: CURRENT }, `t=${t0},v1=${other},v0=${mine}`), { ok: false, reason: 'signature_mismatch' });
});

test('the previous secret verifies during its overlap, also alone, and not once it is gone', (t) => {
  const header = stripeHeader(PREVIOUS);
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, header), { ok: true });
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, stripeHeader(CURRENT)), { ok: true });
  t.like(verify({ current: CURRENT }, header), { ok: false, reason: 'signature_mismatch' });
});

test('property: changing any single byte of the body is refused', (t) => {
  const body = Buffer.from(EVENT);
  const header = stripeHeader(CURRENT);
  fc.assert(
    fc.property(fc.nat({ max: body.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
      const changed = Buffer.from(body);
      changed[index] = (changed[index]! + delta) % 256;
      const outcome = verify({ current: CURRENT }, header, changed);
      return !outcome.ok && outcome.reason === 'signature_mismatch';
    }),
  );
  t.pass();
});
