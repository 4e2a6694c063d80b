// What the delivery log keeps of a request's headers (common/delivery-redaction.ts):
// every credential redacted — the known headers, anything named like one, any
// value that carries a scheme's credentials — and only so many, so long.
import test from 'ava';
import {
  MAX_HEADERS,
  MAX_TOTAL_LENGTH,
  MAX_VALUE_LENGTH,
  OMITTED_HEADER,
  REDACTED,
  redactedHeaders,
  redactedQuery,
} from '../../common/delivery-redaction.ts';

const raw = (pairs: [string, string][]) => pairs.flat();

test('credential headers of every kind are redacted, others kept as sent', (t) => {
  const kept = new Map(
    redactedHeaders(
      raw([
        ['Authorization', 'Basic dXNlcjprZXk='],
        ['Cookie', 'session=abc'],
        ['Stripe-Signature', 't=1,v1=abc'],
        ['X-Hub-Signature-256', 'sha256=abc'],
        ['X-Slack-Signature', 'v0=abc'],
        ['X-Shopify-Hmac-Sha256', 'abc'],
        ['webhook-signature', 'v1,abc'],
        ['X-Api-Key', 'k-123'],
        ['X-Partner-Token', 't-123'],
        ['X-Client-Secret', 's-123'],
        ['Proxy-Authorization', 'Bearer p'],
        ['X-Custom', 'Bearer eyJhbGciOi'],
        ['Content-Type', 'application/json'],
        ['User-Agent', 'Stripe/1.0'],
        ['webhook-id', 'msg_1'],
      ]),
    ),
  );
  for (const name of [
    'authorization',
    'cookie',
    'stripe-signature',
    'x-hub-signature-256',
    'x-slack-signature',
    'x-shopify-hmac-sha256',
    'webhook-signature',
    'x-api-key',
    'x-partner-token',
    'x-client-secret',
    'proxy-authorization',
    'x-custom',
  ])
    t.is(kept.get(name), REDACTED, name);
  t.is(kept.get('content-type'), 'application/json');
  t.is(kept.get('user-agent'), 'Stripe/1.0');
  t.is(kept.get('webhook-id'), 'msg_1');
});

test('headers are bounded in number, value length and total size', (t) => {
  const many = redactedHeaders(raw(Array.from({ length: 100 }, (_, i): [string, string] => [`x-h${i}`, 'v'])));
  t.is(many.length, MAX_HEADERS + 1);
  t.deepEqual(many.at(-1), [OMITTED_HEADER, String(100 - MAX_HEADERS)]);
  const long = redactedHeaders(raw([['x-long', 'a'.repeat(10_000)]]));
  t.is(long[0]![1].length, MAX_VALUE_LENGTH + 1);
  const big = redactedHeaders(
    raw(Array.from({ length: 39 }, (_, i): [string, string] => [`x-b${i}`, 'b'.repeat(1000)])),
  );
  const total = big.reduce((sum, [name, value]) => sum + name.length + value.length, 0);
  t.true(total <= MAX_TOTAL_LENGTH + 100);
});

test('query parameters named like credentials are redacted for display', (t) => {
  t.is(
    redactedQuery('a=1&token=abc&Api%5FKey=x&b'),
    `a=1&token=${encodeURIComponent(REDACTED)}&Api%5FKey=${encodeURIComponent(REDACTED)}&b`,
  );
  t.is(redactedQuery(''), '');
});
