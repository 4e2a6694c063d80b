// Shopify signatures built by hand as Shopify documents them ("Verify webhook
// deliveries"): base64 HMAC-SHA256 of the raw body keyed by the app's client
// secret, in X-Shopify-Hmac-Sha256 (Shopify Events: Shopify-Hmac-Sha256).
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { createHmac, randomUUID } from 'node:crypto';
import { DirectRouteSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { verifyDirectRequest, type HookSecrets } from '../../engine/domain/direct/verification/index.ts';

const route = fromJson(DirectRouteSchema, { verify: { shopify: {} } });
const BODY = JSON.stringify({
  id: 820982911946154500,
  email: 'jon@example.com',
  total_price: '199.00',
  note: 'Größe M',
});
const WEBHOOK_ID = randomUUID();
const EVENT_ID = randomUUID();
const CURRENT = 'shpss_' + 'a1b2c3d4'.repeat(4);
const PREVIOUS = 'shpss_' + 'f0e1d2c3'.repeat(4);

const shopifyHmac = (secret: string, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(body).digest('base64');

function verify(secrets: HookSecrets, headers: Record<string, string>, body: string | Uint8Array = BODY) {
  return verifyDirectRequest(route, secrets, {
    headers: new Map(Object.entries(headers)),
    body: typeof body === 'string' ? Buffer.from(body) : body,
    nowMs: Date.now(),
  });
}

const delivery = (secret: string, body = BODY) => ({
  'x-shopify-topic': 'orders/create',
  'x-shopify-hmac-sha256': shopifyHmac(secret, body),
  'x-shopify-webhook-id': WEBHOOK_ID,
  'x-shopify-event-id': EVENT_ID,
});

/** Shopify signs the body alone and no time: the delivery is known by the body, not by its unsigned id headers. */
const BY_BODY = { signedContent: [Buffer.from(BODY)], signedTimestamp: false };

test('a signed delivery verifies, with X-Shopify-Webhook-Id as the event id (X-Shopify-Event-Id without it)', (t) => {
  t.deepEqual(verify({ current: CURRENT }, delivery(CURRENT)), {
    ok: true,
    scheme: 'shopify',
    eventId: WEBHOOK_ID,
    delivery: BY_BODY,
  });
  const { 'x-shopify-webhook-id': _, ...withoutWebhookId } = delivery(CURRENT);
  t.deepEqual(verify({ current: CURRENT }, withoutWebhookId), {
    ok: true,
    scheme: 'shopify',
    eventId: EVENT_ID,
    delivery: BY_BODY,
  });
});

test('a Shopify Events delivery (headers without X-) verifies too', (t) => {
  const headers = { 'shopify-hmac-sha256': shopifyHmac(CURRENT, BODY), 'shopify-webhook-id': WEBHOOK_ID };
  t.deepEqual(verify({ current: CURRENT }, headers), {
    ok: true,
    scheme: 'shopify',
    eventId: WEBHOOK_ID,
    delivery: BY_BODY,
  });
});

test('the delivery key is exactly what the signature covers, with the id headers changed or dropped', (t) => {
  const { 'x-shopify-webhook-id': _, 'x-shopify-event-id': __, ...withoutIds } = delivery(CURRENT);
  for (const headers of [
    delivery(CURRENT),
    { ...delivery(CURRENT), 'x-shopify-webhook-id': randomUUID() },
    withoutIds,
  ]) {
    t.like(verify({ current: CURRENT }, headers), { ok: true, delivery: BY_BODY });
  }
  t.is(shopifyHmac(CURRENT, Buffer.concat(BY_BODY.signedContent)), delivery(CURRENT)['x-shopify-hmac-sha256']);
});

test('a tampered body and a wrong secret are signature mismatches', (t) => {
  t.like(verify({ current: CURRENT }, delivery(CURRENT), BODY.replace('199', '1')), {
    ok: false,
    reason: 'signature_mismatch',
  });
  t.like(verify({ current: PREVIOUS }, delivery(CURRENT)), { ok: false, reason: 'signature_mismatch' });
});

test('a missing signature header is missing', (t) => {
  const { 'x-shopify-hmac-sha256': _, ...headers } = delivery(CURRENT);
  t.like(verify({ current: CURRENT }, headers), { ok: false, reason: 'missing_header' });
});

test('a signature that is no base64 SHA-256 digest is malformed', (t) => {
  const good = shopifyHmac(CURRENT, BODY);
  const hex = createHmac('sha256', CURRENT).update(BODY).digest('hex');
  for (const value of [hex, good.slice(4), `${good}AAAA`, `${good.slice(0, -2)}!=`, `sha256=${good}`]) {
    t.like(
      verify({ current: CURRENT }, { ...delivery(CURRENT), 'x-shopify-hmac-sha256': value }),
      { ok: false, reason: 'malformed_header' },
      value,
    );
  }
  // Without padding it is the same digest.
  t.like(verify({ current: CURRENT }, { ...delivery(CURRENT), 'x-shopify-hmac-sha256': good.replace(/=+$/, '') }), {
    ok: true,
  });
});

test('the previous client secret verifies during its overlap, also alone, and not once it is gone', (t) => {
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, delivery(PREVIOUS)), { ok: true, eventId: WEBHOOK_ID });
  t.like(verify({ current: CURRENT }, delivery(PREVIOUS)), { ok: false, reason: 'signature_mismatch' });
});

test('property: changing any single byte of the body is refused', (t) => {
  const body = Buffer.from(BODY);
  const headers = delivery(CURRENT);
  fc.assert(
    fc.property(fc.nat({ max: body.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
      const changed = Buffer.from(body);
      changed[index] = (changed[index]! + delta) % 256;
      const outcome = verify({ current: CURRENT }, headers, changed);
      return !outcome.ok && outcome.reason === 'signature_mismatch';
    }),
  );
  t.pass();
});
