// What a hook secret may look like before it is stored, the generated
// Standard Webhooks secret, and the flow card's provider route section.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { Webhook } from 'standardwebhooks';
import {
  GetFlowResponseSchema,
  FlowSummarySchema,
  ProviderRouteSchema,
  WebhookCallSchema,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  generateHookSecret,
  generateProblem,
  hookSecretProblems,
  MAX_HOOK_SECRET_LENGTH,
} from '../../engine/domain/flows/hook-secrets-validation.ts';
import { flowCard } from '../../bin/cli/flow-card.ts';

const standard = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

test('any scheme: empty, too long, surrounding white space and control characters are refused', (t) => {
  t.deepEqual(hookSecretProblems('', undefined), ['the secret is empty']);
  t.deepEqual(hookSecretProblems('x'.repeat(MAX_HOOK_SECRET_LENGTH + 1), 'github'), [
    `the secret is longer than ${MAX_HOOK_SECRET_LENGTH} characters`,
  ]);
  t.deepEqual(hookSecretProblems('abc\n', 'github'), [
    'the secret starts or ends with white space (a stray newline or space from copying it?)',
    'the secret contains control characters (a line break in the middle?)',
  ]);
  t.deepEqual(hookSecretProblems(' abc', 'stripe'), [
    'the secret starts or ends with white space (a stray newline or space from copying it?)',
  ]);
  t.deepEqual(hookSecretProblems('ab\tc', undefined), [
    'the secret contains control characters (a line break in the middle?)',
  ]);
  t.deepEqual(hookSecretProblems('It is a secret with spaces inside', 'github'), []);
  t.deepEqual(hookSecretProblems('whsec_not base64 at all', 'stripe'), [], 'Stripe secrets are used as they are');
});

test('standardWebhooks: whsec_ (or bare) base64 of 24..64 bytes, whpk_ base64 of an Ed25519 key', (t) => {
  t.deepEqual(hookSecretProblems(standard(32), 'standardWebhooks'), []);
  t.deepEqual(hookSecretProblems(standard(24), 'standardWebhooks'), []);
  t.deepEqual(hookSecretProblems(standard(64), 'standardWebhooks'), []);
  t.deepEqual(hookSecretProblems(randomBytes(32).toString('base64'), 'standardWebhooks'), []);
  t.deepEqual(hookSecretProblems(`whpk_${randomBytes(32).toString('base64')}`, 'standardWebhooks'), []);
  t.regex(hookSecretProblems(standard(16), 'standardWebhooks')[0] ?? '', /decodes to 24\.\.64 bytes; this one has 16/);
  t.regex(hookSecretProblems('whsec_abc!def', 'standardWebhooks')[0] ?? '', /not valid base64/);
  // Cut off while copying: the padding no longer fits.
  t.regex(hookSecretProblems(standard(32).slice(0, -3), 'standardWebhooks')[0] ?? '', /not valid base64/);
  t.regex(
    hookSecretProblems(`whpk_${randomBytes(31).toString('base64')}`, 'standardWebhooks')[0] ?? '',
    /Ed25519 public key/,
  );
  // The same text is fine for a route whose scheme does not decode it, or before any route is published.
  t.deepEqual(hookSecretProblems('whsec_abc!def', undefined), []);
});

test('problems never quote the secret', (t) => {
  const secret = `whsec_${'A'.repeat(7)}!`;
  for (const problem of [
    ...hookSecretProblems(secret, 'standardWebhooks'),
    ...hookSecretProblems(` ${secret}`, 'github'),
  ])
    t.false(problem.includes(secret));
});

test('a generated secret is whsec_ and base64 of 32 random bytes that the Standard Webhooks library accepts', (t) => {
  const secret = generateHookSecret();
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(secret.slice(6), 'base64').length, 32);
  t.not(generateHookSecret(), secret);
  t.deepEqual(hookSecretProblems(secret, 'standardWebhooks'), []);
  const payload = '{"type":"invoice.paid"}';
  const webhook = new Webhook(secret);
  const timestamp = new Date();
  const signature = webhook.sign('msg_1', timestamp, payload);
  t.notThrows(() =>
    webhook.verify(payload, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    }),
  );
});

test('generating is refused for providers that issue their own secret', (t) => {
  for (const scheme of ['stripe', 'slack', 'shopify'] as const)
    t.regex(generateProblem(scheme) ?? '', new RegExp(`^${scheme} issues the signing secret itself`));
  for (const scheme of ['standardWebhooks', 'github', 'hmac', undefined] as const)
    t.is(generateProblem(scheme), undefined);
});

function card(providerRoute: { scheme: string; hookSecretSet: boolean } | undefined, published = true): string {
  return flowCard(
    create(GetFlowResponseSchema, {
      flow: create(FlowSummarySchema, {
        company: 'Contoso & Co',
        name: 'stripe-in',
        activity: 'payments.stripe',
        latestVersion: 1,
        publishedVersion: published ? 1 : 0,
      }),
      webhookCall: published
        ? create(WebhookCallSchema, {
            url: 'https://hooks.example.test/BC/ODataV4/flowWebhook_Invoke?company=Contoso%20%26%20Co',
            method: 'POST',
            sampleBody: '{}',
          })
        : undefined,
      providerRoute:
        providerRoute &&
        create(ProviderRouteSchema, {
          url: 'https://hooks.example.test/BC/hooks/Contoso%20%26%20Co/payments.stripe',
          ...providerRoute,
        }),
    }),
  ).join('\n');
}

test('the flow card shows the provider route, its scheme and the exact command that sets a missing secret', (t) => {
  const missing = card({ scheme: 'stripe', hookSecretSet: false });
  t.regex(
    missing,
    /Provider route\n {2}Method +POST\n {2}URL +https:\/\/hooks\.example\.test\/BC\/hooks\/Contoso%20%26%20Co\/payments\.stripe\n {2}Verification +stripe\n/,
  );
  t.true(missing.includes(`no signing secret yet: flowhook hook-secret set 'Contoso & Co' payments.stripe`));
  const set = card({ scheme: 'stripe', hookSecretSet: true });
  t.true(set.includes(`set (rotate: flowhook hook-secret set 'Contoso & Co' payments.stripe --overlap 24h)`));
  t.regex(
    card({ scheme: 'github', hookSecretSet: false }, false),
    /URL +https:\S+ \(answers once the flow is published\)/,
  );
  t.false(card(undefined).includes('Provider route'));
});
