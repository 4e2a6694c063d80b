// GitHub signatures made by @octokit/webhooks-methods' `sign`
// (`sha256=` + hex HMAC-SHA256 of the payload with the webhook secret).
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { randomUUID } from 'node:crypto';
import { createHmac, randomUUID as anotherId } from 'node:crypto';
import { sign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { DirectRouteSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { verifyDirectRequest, type HookSecrets } from '../../engine/domain/direct/verification/index.ts';

const route = fromJson(DirectRouteSchema, { verify: { github: {} } });
const BODY = JSON.stringify({ action: 'opened', number: 7, pull_request: { title: 'Fix ✓' } });
const DELIVERY = randomUUID();
const CURRENT = "It's a Secret to Everybody";
const PREVIOUS = 'the old secret';

function verify(
  secrets: HookSecrets,
  signature: string | undefined,
  body: string | Uint8Array = BODY,
  extra: Record<string, string> = {},
) {
  const headers = new Map(
    Object.entries({ 'x-github-event': 'pull_request', 'x-github-delivery': DELIVERY, ...extra }),
  );
  if (signature !== undefined) headers.set('x-hub-signature-256', signature);
  return verifyDirectRequest(route, secrets, {
    headers,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    nowMs: Date.now(),
  });
}

/** GitHub signs the body alone and no time: the delivery is known by the body. */
const BY_BODY = { signedContent: [Buffer.from(BODY)], signedTimestamp: false };

test('a request signed with octokit verifies, with X-GitHub-Delivery as the event id', async (t) => {
  const signature = await sign(CURRENT, BODY);
  t.true(await octokitVerify(CURRENT, BODY, signature));
  t.deepEqual(verify({ current: CURRENT }, signature), {
    ok: true,
    scheme: 'github',
    eventId: DELIVERY,
    delivery: BY_BODY,
  });
});

test('without a usable delivery header the request still verifies, with no event id', async (t) => {
  const signature = await sign(CURRENT, BODY);
  const headers = new Map([['x-hub-signature-256', signature]]);
  t.deepEqual(verifyDirectRequest(route, { current: CURRENT }, { headers, body: Buffer.from(BODY), nowMs: 0 }), {
    ok: true,
    scheme: 'github',
    delivery: BY_BODY,
  });
  t.deepEqual(verify({ current: CURRENT }, signature, BODY, { 'x-github-delivery': 'a b' }), {
    ok: true,
    scheme: 'github',
    delivery: BY_BODY,
  });
});

test('the delivery key is exactly what the signature covers, whatever the unsigned X-GitHub-Delivery says', async (t) => {
  const signature = await sign(CURRENT, BODY);
  const keys = [
    verify({ current: CURRENT }, signature),
    verify({ current: CURRENT }, signature, BODY, { 'x-github-delivery': anotherId() }),
  ].map((outcome) => (outcome.ok ? outcome.delivery : undefined));
  const headers = new Map([['x-hub-signature-256', signature]]);
  const dropped = verifyDirectRequest(route, { current: CURRENT }, { headers, body: Buffer.from(BODY), nowMs: 0 });
  keys.push(dropped.ok ? dropped.delivery : undefined);
  for (const key of keys) t.deepEqual(key, BY_BODY);
  // Hashing the key's parts under the secret gives the signature: nothing more, nothing less.
  const parts = (keys[0] as typeof BY_BODY).signedContent;
  t.is(
    `sha256=${parts.reduce((hmac, part) => hmac.update(part), createHmac('sha256', CURRENT)).digest('hex')}`,
    signature,
  );
});

test('a tampered body and a wrong secret are signature mismatches', async (t) => {
  const signature = await sign(CURRENT, BODY);
  t.like(verify({ current: CURRENT }, signature, BODY.replace('7', '8')), { ok: false, reason: 'signature_mismatch' });
  t.like(verify({ current: 'another secret' }, signature), { ok: false, reason: 'signature_mismatch' });
});

test('a missing X-Hub-Signature-256 is missing, even when the legacy SHA-1 header is present', (t) => {
  t.like(verify({ current: CURRENT }, undefined), { ok: false, reason: 'missing_header' });
  t.like(
    verify({ current: CURRENT }, undefined, BODY, {
      'x-hub-signature': 'sha1=0000000000000000000000000000000000000000',
    }),
    { ok: false, reason: 'missing_header' },
  );
});

test('malformed signatures are refused as malformed', async (t) => {
  const hex = (await sign(CURRENT, BODY)).slice('sha256='.length);
  for (const value of [
    hex,
    `sha1=${hex}`,
    `SHA256=${hex}`,
    `sha256=${hex.slice(1)}`,
    `sha256=${hex}00`,
    `sha256=${hex.slice(0, -1)}g`,
    `sha256=${hex}, sha256=${hex}`,
  ]) {
    t.like(verify({ current: CURRENT }, value), { ok: false, reason: 'malformed_header' }, value);
  }
  // Upper-case hex is still the same digest.
  t.like(verify({ current: CURRENT }, `sha256=${hex.toUpperCase()}`), { ok: true });
});

test('the previous secret verifies during its overlap, also alone, and not once it is gone', async (t) => {
  const signature = await sign(PREVIOUS, BODY);
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, signature), { ok: true, eventId: DELIVERY });
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, await sign(CURRENT, BODY)), { ok: true });
  t.like(verify({ current: CURRENT }, signature), { ok: false, reason: 'signature_mismatch' });
});

test('property: changing any single byte of the body is refused', async (t) => {
  const body = Buffer.from(BODY);
  const signature = await sign(CURRENT, BODY);
  fc.assert(
    fc.property(fc.nat({ max: body.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
      const changed = Buffer.from(body);
      changed[index] = (changed[index]! + delta) % 256;
      const outcome = verify({ current: CURRENT }, signature, changed);
      return !outcome.ok && outcome.reason === 'signature_mismatch';
    }),
  );
  t.pass();
});
