// What alerts say (engine/domain/alerts/alert-messages.ts) and how each
// channel carries it (engine/infrastructure/notify/channel-payloads.ts):
// grouped, one line and a sentence, the console page behind it, a stable id
// per incident and state; Standard Webhooks signatures verified by that
// project's own library.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { composeAlert, type MessageRule } from '../../engine/domain/alerts/alert-messages.ts';
import {
  mailContent,
  slackPayload,
  teamsPayload,
  webhookPayload,
} from '../../engine/infrastructure/notify/channel-payloads.ts';
import { standardWebhooksHeaders } from '../../engine/infrastructure/notify/standard-webhooks-signature.ts';
import { signingKeyOf } from '../../flow/connection-kinds/webhook-kind.ts';

const RULE: MessageRule = {
  id: '3f0c1c8e-0000-4000-8000-000000000001',
  company: 'Acme & Co',
  name: 'partner-failures',
  condition: 'execution-failed',
  flow: 'partner-sync',
  reason: null,
  threshold: 3,
  windowSeconds: 300,
};
const CONTEXT = {
  consoleUrl: 'https://console.example.test/',
  taskQueue: 'flowhook',
  now: new Date('2026-11-28T10:00:00Z'),
};

test('a firing execution-failed alert: grouped title, the failed executions page behind it', (t) => {
  const message = composeAlert(RULE, { state: 'firing', incident: 2, count: 3 }, CONTEXT);
  t.is(message.title, 'Firing: 3 failed executions of partner-sync in 5m');
  t.is(message.event, 'alert.firing');
  t.is(message.id, `alert_${RULE.id}_2_firing`);
  const url = new URL(message.link!.url);
  t.is(url.origin + url.pathname, 'https://console.example.test/executions');
  t.is(url.searchParams.get('company'), 'Acme & Co');
  t.is(url.searchParams.get('flow'), 'partner-sync');
  t.is(url.searchParams.get('status'), 'FAILED,TIMED_OUT');
  t.is(url.searchParams.get('since'), '2026-11-28T09:55:00.000Z');
  t.like(message.data, { state: 'firing', incident: 2, count: 3, threshold: 3, windowSeconds: 300 });
});

test('resolved keeps the incident in its id, another id than the firing one; a test never collides', (t) => {
  const firing = composeAlert(RULE, { state: 'firing', incident: 2, count: 3 }, CONTEXT);
  const resolved = composeAlert(RULE, { state: 'ok', incident: 2, count: 0 }, CONTEXT);
  t.is(resolved.event, 'alert.resolved');
  t.is(resolved.id, `alert_${RULE.id}_2_resolved`);
  t.not(resolved.id, firing.id);
  t.regex(resolved.text, /resolved: 0 in the last 5m, under its threshold of 3/);
  t.regex(composeAlert(RULE, { state: 'test' }, CONTEXT).id, /^test_/);
});

test('refused calls link to the deliveries page filtered by reason; no console, no link', (t) => {
  const refused = { ...RULE, condition: 'calls-refused', flow: null, reason: 'secret_mismatch', threshold: 5 };
  const message = composeAlert(refused, { state: 'firing', incident: 1, count: 7 }, CONTEXT);
  t.is(message.title, 'Firing: 7 refused calls (secret_mismatch) to Acme & Co in 5m');
  t.regex(message.link!.url, /\/deliveries\/Acme%20%26%20Co\?outcome=refused&reason=secret_mismatch&since=/);
  t.is(
    composeAlert(refused, { state: 'firing', incident: 1, count: 7 }, { ...CONTEXT, consoleUrl: undefined }).link,
    undefined,
  );
});

test('Slack gets text and Block Kit with its reserved characters escaped; Teams an Adaptive Card', (t) => {
  const message = composeAlert(RULE, { state: 'firing', incident: 1, count: 3 }, CONTEXT);
  const slack = slackPayload(message) as { text: string; blocks: { type: string; text: { text: string } }[] };
  t.is(slack.text, message.title);
  t.deepEqual(
    slack.blocks.map((block) => block.type),
    ['header', 'section'],
  );
  t.regex(slack.blocks[1]!.text.text, /company Acme &amp; Co is firing/);
  t.regex(slack.blocks[1]!.text.text, /<https:\/\/console\.example\.test\/executions\?[^|>]+\|Failed executions>$/);
  const teams = teamsPayload(message) as {
    type: string;
    attachments: {
      contentType: string;
      content: { type: string; version: string; body: unknown[]; actions: { type: string; url: string }[] };
    }[];
  };
  t.is(teams.type, 'message');
  const [card] = teams.attachments;
  t.is(card!.contentType, 'application/vnd.microsoft.card.adaptive');
  t.like(card!.content, { type: 'AdaptiveCard', version: '1.4' });
  t.is(card!.content.actions[0]!.type, 'Action.OpenUrl');
  t.is(card!.content.actions[0]!.url, message.link!.url);
  t.deepEqual(mailContent(message).subject, `[flowhook] ${message.title}`);
});

test('Standard Webhooks: the standardwebhooks library verifies what flowhook signs, and refuses another body', (t) => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const key = signingKeyOf(secret)!;
  const message = composeAlert(RULE, { state: 'firing', incident: 1, count: 3 }, CONTEXT);
  const body = JSON.stringify(webhookPayload(message));
  const headers = standardWebhooksHeaders(key, {
    id: message.id,
    timestampSeconds: Math.floor(Date.now() / 1000),
    body,
  });
  t.is(headers['webhook-id'], message.id);
  const verified = new Webhook(secret).verify(body, headers) as { type: string; data: { count: number } };
  t.is(verified.type, 'alert.firing');
  t.is(verified.data.count, 3);
  t.throws(() => new Webhook(secret).verify(body.replace('"count":3', '"count":4'), headers));
});

test('a signing secret is whsec_ and base64 of 24 to 64 bytes', (t) => {
  t.truthy(signingKeyOf(`whsec_${randomBytes(24).toString('base64')}`));
  t.is(signingKeyOf(`whsec_${randomBytes(8).toString('base64')}`), undefined);
  t.is(signingKeyOf(randomBytes(32).toString('base64')), undefined);
  t.is(signingKeyOf('whsec_not base64!'), undefined);
});
