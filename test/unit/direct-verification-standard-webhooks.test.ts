// Standard Webhooks signed by the `standardwebhooks` library (v1, HMAC). The
// library has no v1a (Ed25519) support, so v1a requests are signed here with
// node:crypto exactly as the spec describes: Ed25519 over
// `{webhook-id}.{webhook-timestamp}.{body}`, base64, public key serialized as
// `whpk_` + base64 of its 32 raw bytes.
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { generateKeyPairSync, randomBytes, sign as ed25519Sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DirectRouteSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { verifyDirectRequest, type HookSecrets } from '../../engine/domain/direct/verification/index.ts';

// Real time, so the library can check the same request against its own clock.
const NOW = Date.now();
const route = fromJson(DirectRouteSchema, { verify: { standardWebhooks: {} } });
const BODY = '{"type":"invoice.paid","data":{"id":"in_1","amount":4200,"note":"grüße"}}';
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const CURRENT = newSecret();
const PREVIOUS = newSecret();

/** The library's signature header value (`v1,<base64>`) at `atMs`. */
function libSign(secret: string, atMs: number, body = BODY, id = ID): string {
  return new Webhook(secret).sign(id, new Date(atMs), body);
}

function headers(signature: string, atMs = NOW, id = ID): Map<string, string> {
  return new Map([
    ['webhook-id', id],
    ['webhook-timestamp', String(Math.floor(atMs / 1000))],
    ['webhook-signature', signature],
    ['content-type', 'application/json'],
  ]);
}

function verify(
  secrets: HookSecrets,
  requestHeaders: Map<string, string>,
  body: string | Uint8Array = BODY,
  nowMs = NOW,
) {
  return verifyDirectRequest(route, secrets, {
    headers: requestHeaders,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    nowMs,
  });
}

function ed25519Pair(): { publicKey: string; signAt: (atMs: number, body?: string, id?: string) => string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return {
    publicKey: `whpk_${raw.toString('base64')}`,
    signAt: (atMs, body = BODY, id = ID) =>
      `v1a,${ed25519Sign(null, Buffer.from(`${id}.${Math.floor(atMs / 1000)}.${body}`), privateKey).toString('base64')}`,
  };
}

test('a request signed by the standardwebhooks library verifies, with webhook-id (signed) as the event id and the delivery key', (t) => {
  const requestHeaders = headers(libSign(CURRENT, NOW));
  t.deepEqual(verify({ current: CURRENT }, requestHeaders), {
    ok: true,
    scheme: 'standardWebhooks',
    eventId: ID,
    delivery: { signedEventId: ID, signedTimestamp: true },
  });
  // The library itself agrees on the same request (the fixture is a real one).
  t.notThrows(() => new Webhook(CURRENT).verify(BODY, Object.fromEntries(requestHeaders)));
});

test('a tampered body, a wrong secret and a changed id or timestamp are signature mismatches', (t) => {
  const signature = libSign(CURRENT, NOW);
  const mismatch = { ok: false, scheme: 'standardWebhooks', reason: 'signature_mismatch' };
  t.deepEqual(verify({ current: CURRENT }, headers(signature), BODY.replace('4200', '4201')), mismatch);
  t.deepEqual(verify({ current: newSecret() }, headers(signature)), mismatch);
  t.deepEqual(verify({ current: CURRENT }, headers(signature, NOW, 'msg_other')), mismatch);
  t.deepEqual(verify({ current: CURRENT }, headers(signature, NOW - 1000)), mismatch);
});

test('a timestamp beyond the default five minutes, past or future, is stale; the bounds themselves are inside', (t) => {
  for (const offsetSeconds of [-301, 301, -3600, 86_400]) {
    const at = NOW + offsetSeconds * 1000;
    t.like(
      verify({ current: CURRENT }, headers(libSign(CURRENT, at), at)),
      { ok: false, reason: 'stale_timestamp' },
      `offset ${offsetSeconds}`,
    );
  }
  for (const offsetSeconds of [-300, 300]) {
    const at = NOW + offsetSeconds * 1000;
    t.like(verify({ current: CURRENT }, headers(libSign(CURRENT, at), at)), { ok: true }, `offset ${offsetSeconds}`);
  }
});

test('each missing header is refused as missing; an empty one counts as missing', (t) => {
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const without = headers(libSign(CURRENT, NOW));
    without.delete(name);
    t.like(verify({ current: CURRENT }, without), { ok: false, reason: 'missing_header' }, name);
    without.set(name, '');
    t.like(verify({ current: CURRENT }, without), { ok: false, reason: 'missing_header' }, `${name} empty`);
  }
});

test('malformed headers are refused as malformed, never thrown', (t) => {
  const good = libSign(CURRENT, NOW);
  const cases: [string, string][] = [
    ['webhook-signature', 'v1'],
    ['webhook-signature', ',abc'],
    ['webhook-signature', 'v1,not base64!'],
    ['webhook-signature', `v1,${good.slice(3, -4)}`],
    ['webhook-signature', `${good} v1a,AAAA`],
    ['webhook-signature', Array.from({ length: 17 }, () => good).join(' ')],
    ['webhook-timestamp', 'soon'],
    ['webhook-timestamp', '1.7e9'],
    ['webhook-timestamp', '-1'],
    ['webhook-timestamp', ' 1763920800'],
    ['webhook-id', 'msg.with.dots'],
    ['webhook-id', 'msg with space'],
    ['webhook-id', 'x'.repeat(256)],
  ];
  for (const [name, value] of cases) {
    const requestHeaders = headers(good);
    requestHeaders.set(name, value);
    t.like(
      verify({ current: CURRENT }, requestHeaders),
      { ok: false, reason: 'malformed_header' },
      `${name}: ${value.slice(0, 40)}`,
    );
  }
});

test('several signatures in one header (the sender rotating) verify when any one matches, in any order', (t) => {
  const mine = libSign(CURRENT, NOW);
  const other = libSign(newSecret(), NOW);
  t.like(verify({ current: CURRENT }, headers(`${other} ${mine}`)), { ok: true, eventId: ID });
  t.like(verify({ current: CURRENT }, headers(`${mine} ${other}`)), { ok: true });
  // Unknown versions are skipped (forward compatibility), so they neither break nor satisfy the header.
  t.like(verify({ current: CURRENT }, headers(`v2,whatever ${mine}`)), { ok: true });
  t.like(verify({ current: CURRENT }, headers('v2,whatever')), { ok: false, reason: 'signature_mismatch' });
  // A header sent twice reaches the engine joined with ', '.
  t.like(verify({ current: CURRENT }, headers(`${other}, ${mine}`)), { ok: true });
});

test('the previous secret verifies during its overlap, also alone, and not once it is gone', (t) => {
  const signedWithPrevious = headers(libSign(PREVIOUS, NOW));
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, signedWithPrevious), { ok: true, eventId: ID });
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, headers(libSign(CURRENT, NOW))), { ok: true });
  t.like(verify({ current: CURRENT }, signedWithPrevious), { ok: false, reason: 'signature_mismatch' });
});

test('a bare base64 secret works like whsec_, as the library reads it', (t) => {
  const bare = randomBytes(24).toString('base64');
  t.like(verify({ current: bare }, headers(libSign(bare, NOW))), { ok: true });
});

test('v1a (Ed25519) verifies with the whpk_ public key, and refuses tampering, a stale timestamp and the wrong key', (t) => {
  const sender = ed25519Pair();
  const signature = sender.signAt(NOW);
  t.deepEqual(verify({ current: sender.publicKey }, headers(signature)), {
    ok: true,
    scheme: 'standardWebhooks',
    eventId: ID,
    delivery: { signedEventId: ID, signedTimestamp: true },
  });
  t.like(verify({ current: sender.publicKey }, headers(signature), `${BODY} `), {
    ok: false,
    reason: 'signature_mismatch',
  });
  t.like(verify({ current: ed25519Pair().publicKey }, headers(signature)), { ok: false, reason: 'signature_mismatch' });
  const old = NOW - 301_000;
  t.like(verify({ current: sender.publicKey }, headers(sender.signAt(old), old)), {
    ok: false,
    reason: 'stale_timestamp',
  });
  // A whsec_ secret does not accept a v1a signature, nor a whpk_ key a v1 one.
  t.like(verify({ current: CURRENT }, headers(signature)), { ok: false, reason: 'signature_mismatch' });
  t.like(verify({ current: sender.publicKey }, headers(libSign(CURRENT, NOW))), {
    ok: false,
    reason: 'signature_mismatch',
  });
});

test('moving from HMAC to Ed25519: a header with both kinds verifies under either secret, current or previous', (t) => {
  const sender = ed25519Pair();
  const both = headers(`${libSign(PREVIOUS, NOW)} ${sender.signAt(NOW)}`);
  t.like(verify({ current: sender.publicKey, previous: PREVIOUS }, both), { ok: true });
  t.like(verify({ current: sender.publicKey }, both), { ok: true });
  t.like(verify({ current: PREVIOUS }, both), { ok: true });
  t.like(verify({ current: CURRENT, previous: sender.publicKey }, headers(sender.signAt(NOW))), { ok: true });
});

test('unusable secrets verify nothing: a whsk_ private key, a short whpk_, an empty secret', (t) => {
  const signature = headers(libSign(CURRENT, NOW));
  for (const secret of ['whsk_' + randomBytes(32).toString('base64'), 'whpk_AAAA', '', 'whsec_***']) {
    t.like(verify({ current: secret }, signature), { ok: false, reason: 'signature_mismatch' }, secret);
  }
});

test('property: changing any single byte of the body is refused', (t) => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 300 }),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      (text, at, delta) => {
        const body = Buffer.from(text);
        const requestHeaders = headers(libSign(CURRENT, NOW, text));
        if (!verify({ current: CURRENT }, requestHeaders, body).ok) return false;
        const changed = Buffer.from(body);
        const index = at % changed.length;
        changed[index] = (changed[index]! + delta) % 256;
        const outcome = verify({ current: CURRENT }, requestHeaders, changed);
        return !outcome.ok && outcome.reason === 'signature_mismatch';
      },
    ),
  );
  t.pass();
});
