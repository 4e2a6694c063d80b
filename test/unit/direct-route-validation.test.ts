// Publish validation of `trigger.webhook.direct` (flow/direct-route.ts
// through validateFlow), and where `flow apply` places its problems in the file.
import test from 'ava';
import { toJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { validateFlow } from '../../flow/index.ts';
import { parseFlowTextWithPositions } from '../../bin/cli/flow-file.ts';
import { placePublishProblems } from '../../bin/cli/publish-problem-positions.ts';

function errorsOf(direct: unknown): string[] {
  const flow = {
    company: 'C',
    name: 'f',
    trigger: { webhook: { activity: 'a.b', direct } },
    steps: [{ log: { message: 'hi' } }],
  };
  return validateFlow(flow as never).errors;
}

test('every named scheme with defaults is publishable', (t) => {
  for (const scheme of ['standardWebhooks', 'stripe', 'github', 'slack', 'shopify'])
    t.deepEqual(errorsOf({ verify: { [scheme]: {} } }), [], scheme);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X-Signature' } } }), []);
  t.deepEqual(errorsOf({ verify: { stripe: {} }, toleranceSeconds: 600 }), []);
  t.deepEqual(
    errorsOf({
      verify: {
        hmac: {
          header: 'X-Signature',
          algorithm: 'sha512',
          encoding: 'base64',
          prefix: 'v1=',
          signedContent: '{timestamp}.{id}.{body}',
          timestampHeader: 'X-Timestamp',
          eventIdHeader: 'X-Event-Id',
        },
      },
      toleranceSeconds: 60,
    }),
    [],
  );
});

test('a route without a scheme, or with two, is refused naming the field', (t) => {
  t.deepEqual(errorsOf({}), [
    'trigger.webhook.direct.verify: exactly one scheme of standardWebhooks, stripe, github, slack, shopify, hmac (found none)',
  ]);
  t.deepEqual(errorsOf({ verify: {} }), [
    'trigger.webhook.direct.verify: exactly one scheme of standardWebhooks, stripe, github, slack, shopify, hmac (found none)',
  ]);
  t.regex(errorsOf({ verify: { stripe: {}, github: {} } })[0] ?? '', /found stripe and github/);
});

test('toleranceSeconds is bounded and only allowed where a timestamp is signed', (t) => {
  t.deepEqual(errorsOf({ verify: { stripe: {} }, toleranceSeconds: 0 }), [
    'trigger.webhook.direct.toleranceSeconds: must be between 1 and 3600, got 0',
  ]);
  t.deepEqual(errorsOf({ verify: { slack: {} }, toleranceSeconds: 3601 }), [
    'trigger.webhook.direct.toleranceSeconds: must be between 1 and 3600, got 3601',
  ]);
  t.deepEqual(errorsOf({ verify: { github: {} }, toleranceSeconds: 300 }), [
    'trigger.webhook.direct.toleranceSeconds: github signs no timestamp; remove it',
  ]);
  t.regex(
    errorsOf({ verify: { hmac: { header: 'X-Sig' } }, toleranceSeconds: 300 })[0] ?? '',
    /^trigger\.webhook\.direct\.toleranceSeconds: this hmac route signs no timestamp/,
  );
});

test('hmac: header required, closed algorithm and encoding sets, named header syntax', (t) => {
  const at = 'trigger.webhook.direct.verify.hmac';
  t.deepEqual(errorsOf({ verify: { hmac: {} } }), [`${at}.header: required`]);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X Sig' } } }), [
    `${at}.header: an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-, at most 100), got "X Sig"`,
  ]);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X-Sig', algorithm: 'md5' } } }), [
    `${at}.algorithm: one of sha1, sha256, sha512 (default sha256), got "md5"`,
  ]);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X-Sig', algorithm: 'SHA256' } } }), [
    `${at}.algorithm: one of sha1, sha256, sha512 (default sha256), got "SHA256"`,
  ]);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X-Sig', encoding: 'base32' } } }), [
    `${at}.encoding: one of hex, base64 (default hex), got "base32"`,
  ]);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X-Sig', prefix: 'sha256=\n' } } }), [
    `${at}.prefix: must not contain control characters`,
  ]);
  t.deepEqual(errorsOf({ verify: { hmac: { header: 'X-Sig', eventIdHeader: 'x-sig' } } }), [
    `${at}: header, timestampHeader and eventIdHeader must be different headers`,
  ]);
});

test('hmac signedContent: only {body}, {timestamp}, {id}; {body} required; their headers required', (t) => {
  const at = 'trigger.webhook.direct.verify.hmac';
  const hmac = (extra: object) => errorsOf({ verify: { hmac: { header: 'X-Sig', ...extra } } });
  t.deepEqual(hmac({ signedContent: '{timestamp}.{payload}', timestampHeader: 'X-Ts' }), [
    `${at}.signedContent: only the placeholders {body}, {timestamp} and {id} (braces have no other use), got "{payload}"`,
  ]);
  t.deepEqual(hmac({ signedContent: '{Body}' }), [
    `${at}.signedContent: only the placeholders {body}, {timestamp} and {id} (braces have no other use), got "{Body}"`,
  ]);
  t.deepEqual(hmac({ signedContent: '{body' }), [
    `${at}.signedContent: only the placeholders {body}, {timestamp} and {id} (braces have no other use), got "{"`,
  ]);
  t.deepEqual(hmac({ signedContent: '{timestamp}', timestampHeader: 'X-Ts' }), [
    `${at}.signedContent: must contain {body} (a signature that does not cover the body proves nothing about it)`,
  ]);
  t.deepEqual(hmac({ signedContent: '{timestamp}.{body}' }), [
    `${at}.timestampHeader: required (signedContent uses {timestamp})`,
  ]);
  t.deepEqual(hmac({ signedContent: '{id}.{body}' }), [`${at}.eventIdHeader: required (signedContent uses {id})`]);
  t.deepEqual(hmac({ timestampHeader: 'X-Ts' }), [
    `${at}.timestampHeader: signedContent has no {timestamp}, and an unsigned timestamp proves nothing; add {timestamp} to signedContent or remove timestampHeader`,
  ]);
  // An event id header that is not signed is allowed: it only names the redelivery.
  t.deepEqual(hmac({ eventIdHeader: 'X-Delivery' }), []);
});

test('hmac signedContent: placeholders side by side are refused, saying why; a digits-only separator beside {timestamp} too', (t) => {
  const at = 'trigger.webhook.direct.verify.hmac.signedContent';
  const hmac = (signedContent: string) =>
    errorsOf({
      verify: {
        hmac: {
          header: 'X-Sig',
          signedContent,
          timestampHeader: signedContent.includes('{timestamp}') ? 'X-Ts' : undefined,
          eventIdHeader: 'X-Id',
        },
      },
    });
  t.deepEqual(hmac('{id}{body}'), [
    `${at}: {id}{body} puts two placeholders side by side: with no text between them the boundary can move, so the same signed bytes read as many (id, body) pairs and one signature covers them all; put a separator between them, e.g. "{id}.{body}"`,
  ]);
  for (const content of ['{timestamp}{body}', '{body}{timestamp}', 'v1:{id}.{timestamp}{body}', '{body}{body}'])
    t.regex(hmac(content)[0] ?? '', /side by side/, content);
  t.deepEqual(hmac('{timestamp}0{body}'), [
    `${at}: the text "0" between {timestamp} and {body} is only digits, which a timestamp may hold too, so the boundary between them can move; use a separator with a character that is not a digit, e.g. "{timestamp}.{body}"`,
  ]);
  t.regex(hmac('{body}12{timestamp}')[0] ?? '', /only digits/);
  // A separator is enough once the placeholder beside it cannot hold it (an id never holds a literal's character).
  for (const content of [
    '{id}.{body}',
    'v0:{timestamp}:{body}',
    '{timestamp}1.{body}',
    '{body}.{id}',
    '{id}.{timestamp}.{body}',
    '12{timestamp}.{body}34',
  ])
    t.deepEqual(hmac(content), [], content);
});

test('a flow without direct is not affected', (t) => {
  const flow = {
    company: 'C',
    name: 'f',
    trigger: { webhook: { activity: 'a.b' } },
    steps: [{ log: { message: 'hi' } }],
  };
  t.deepEqual(validateFlow(flow as never).errors, []);
});

const FILE = `company: C
name: f
trigger:
  webhook:
    activity: payments.custom
    direct:
      verify:
        hmac:
          header: X-Signature
          algorithm: md5
          signedContent: "{timestamp}.{body}"
      toleranceSeconds: 9000
steps:
  - log: { message: hi }
`;

test('flow apply places the problems of direct at their line and column', (t) => {
  const { flow, positionOf } = parseFlowTextWithPositions('f.yaml', FILE);
  // What the engine validates is the stored JSON of the parsed message.
  const problems = validateFlow(toJson(FlowSchema, flow) as never).errors;
  const message = ['Flow "f" (new) cannot be published:', ...problems.map((problem) => `- ${problem}`)].join('\n');
  t.is(
    placePublishProblems(message, 'f.yaml', positionOf),
    [
      'Flow "f" (new) cannot be published:',
      '- f.yaml:10:22: trigger.webhook.direct.verify.hmac.algorithm: one of sha1, sha256, sha512 (default sha256), got "md5"',
      // timestampHeader is missing: the hmac block it belongs in is the place.
      '- f.yaml:9:11: trigger.webhook.direct.verify.hmac.timestampHeader: required (signedContent uses {timestamp})',
      '- f.yaml:12:25: trigger.webhook.direct.toleranceSeconds: must be between 1 and 3600, got 9000',
    ].join('\n'),
  );
});
