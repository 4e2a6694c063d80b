// Slack signatures built by hand as Slack documents them ("Verifying requests
// from Slack"): `v0=` + hex HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}`
// keyed by the app's signing secret. Slack publishes no signing library.
import test from 'ava';
import fc from 'fast-check';
import { fromJson } from '@bufbuild/protobuf';
import { createHmac } from 'node:crypto';
import { DirectRouteSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import {
  slackChallenge,
  verifyDirectRequest,
  type HookSecrets,
} from '../../engine/domain/direct/verification/index.ts';

const NOW = Date.UTC(2026, 10, 23, 18, 0, 0);
const route = fromJson(DirectRouteSchema, { verify: { slack: {} } });
const EVENT = JSON.stringify({
  token: 'x',
  team_id: 'T1',
  type: 'event_callback',
  event_id: 'Ev08MFMKH6CV',
  event: { type: 'app_mention', text: 'hi' },
});
const SLASH_COMMAND =
  'token=x&team_id=T1&command=%2Fweather&text=94070&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1';
const CURRENT = '8f742231b10e8888abcd99yyyzzz85a5';
const PREVIOUS = '0b9d4e7c1f2a3b4c5d6e7f8091a2b3c4';

function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

const seconds = (ms: number) => String(Math.floor(ms / 1000));

function signedHeaders(secret: string, body: string, atMs = NOW): Record<string, string> {
  return {
    'x-slack-request-timestamp': seconds(atMs),
    'x-slack-signature': slackSignature(secret, seconds(atMs), body),
  };
}

function verify(secrets: HookSecrets, headers: Record<string, string>, body: string | Uint8Array = EVENT, nowMs = NOW) {
  return verifyDirectRequest(route, secrets, {
    headers: new Map(Object.entries(headers)),
    body: typeof body === 'string' ? Buffer.from(body) : body,
    nowMs,
  });
}

test('a signed Events API request verifies, with event_id (inside the signed body) as the event id and the delivery key', (t) => {
  const delivery = { signedEventId: 'Ev08MFMKH6CV', signedTimestamp: true };
  t.deepEqual(verify({ current: CURRENT }, signedHeaders(CURRENT, EVENT)), {
    ok: true,
    scheme: 'slack',
    eventId: 'Ev08MFMKH6CV',
    delivery,
  });
});

test('a signed slash command (a form post) verifies, with no event id, known by exactly what was signed', (t) => {
  const headers = signedHeaders(CURRENT, SLASH_COMMAND);
  const delivery = { signedContent: [`v0:${seconds(NOW)}:`, Buffer.from(SLASH_COMMAND)], signedTimestamp: true };
  t.deepEqual(verify({ current: CURRENT }, headers, SLASH_COMMAND), { ok: true, scheme: 'slack', delivery });
  t.is(
    `v0=${delivery.signedContent.reduce((hmac, part) => hmac.update(part), createHmac('sha256', CURRENT)).digest('hex')}`,
    headers['x-slack-signature'],
  );
});

test('a tampered body, a wrong secret and a changed timestamp are signature mismatches', (t) => {
  const headers = signedHeaders(CURRENT, EVENT);
  t.like(verify({ current: CURRENT }, headers, EVENT.replace('hi', 'ho')), { ok: false, reason: 'signature_mismatch' });
  t.like(verify({ current: PREVIOUS }, headers), { ok: false, reason: 'signature_mismatch' });
  t.like(verify({ current: CURRENT }, { ...headers, 'x-slack-request-timestamp': seconds(NOW - 1000) }), {
    ok: false,
    reason: 'signature_mismatch',
  });
});

test('a timestamp beyond the tolerance, past or future, is stale', (t) => {
  for (const offsetSeconds of [-301, 301]) {
    const at = NOW + offsetSeconds * 1000;
    t.like(
      verify({ current: CURRENT }, signedHeaders(CURRENT, EVENT, at)),
      { ok: false, reason: 'stale_timestamp' },
      `offset ${offsetSeconds}`,
    );
  }
  t.like(verify({ current: CURRENT }, signedHeaders(CURRENT, EVENT, NOW + 300_000)), { ok: true });
});

test('either header missing is missing', (t) => {
  const headers = signedHeaders(CURRENT, EVENT);
  t.like(verify({ current: CURRENT }, { 'x-slack-signature': headers['x-slack-signature']! }), {
    ok: false,
    reason: 'missing_header',
  });
  t.like(verify({ current: CURRENT }, { 'x-slack-request-timestamp': headers['x-slack-request-timestamp']! }), {
    ok: false,
    reason: 'missing_header',
  });
});

test('malformed signature or timestamp headers are refused as malformed', (t) => {
  const headers = signedHeaders(CURRENT, EVENT);
  const hex = headers['x-slack-signature']!.slice(3);
  for (const signature of [hex, `v1=${hex}`, `v0=${hex.slice(2)}`, `v0=${hex.slice(0, -1)}x`, `v0=${hex}, v0=${hex}`]) {
    t.like(
      verify({ current: CURRENT }, { ...headers, 'x-slack-signature': signature }),
      { ok: false, reason: 'malformed_header' },
      signature,
    );
  }
  for (const timestamp of ['now', '1.5', '+1763920800', '99999999999999']) {
    t.like(
      verify({ current: CURRENT }, { ...headers, 'x-slack-request-timestamp': timestamp }),
      { ok: false, reason: 'malformed_header' },
      timestamp,
    );
  }
});

test('the previous signing secret verifies during its overlap, also alone, and not once it is gone', (t) => {
  const headers = signedHeaders(PREVIOUS, EVENT);
  t.like(verify({ current: CURRENT, previous: PREVIOUS }, headers), { ok: true, eventId: 'Ev08MFMKH6CV' });
  t.like(verify({ current: CURRENT }, headers), { ok: false, reason: 'signature_mismatch' });
});

test('url_verification: the challenge of a verified handshake body, and nothing for other bodies or schemes', (t) => {
  const handshake = JSON.stringify({
    token: 'x',
    challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    type: 'url_verification',
  });
  t.like(verify({ current: CURRENT }, signedHeaders(CURRENT, handshake), handshake), { ok: true });
  t.is(slackChallenge(route, Buffer.from(handshake)), '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
  t.is(slackChallenge(route, Buffer.from(EVENT)), undefined);
  t.is(slackChallenge(route, Buffer.from(SLASH_COMMAND)), undefined);
  t.is(slackChallenge(route, Buffer.from('{"type":"url_verification","challenge":7}')), undefined);
  t.is(slackChallenge(route, Buffer.from('{"type":"url_verification"')), undefined);
  t.is(slackChallenge(fromJson(DirectRouteSchema, { verify: { github: {} } }), Buffer.from(handshake)), undefined);
});

test('property: changing any single byte of the body is refused', (t) => {
  const body = Buffer.from(SLASH_COMMAND);
  const headers = signedHeaders(CURRENT, SLASH_COMMAND);
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
