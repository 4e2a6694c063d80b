// What each channel is sent for one alert message. Pure, so the shapes are
// tested without a network: Slack's incoming webhook takes `text` (the
// notification's fallback) and Block Kit `blocks`; a Teams workflow webhook
// takes a message whose attachment is an Adaptive Card; the signed webhook
// takes the message as data, in the Standard Webhooks payload shape
// (`type`, `timestamp`, `data`).
import type { AlertMessage } from './alert-message.ts';

export function slackPayload(message: AlertMessage): Record<string, unknown> {
  const link = message.link ? ` <${slackEscape(message.link.url)}|${slackEscape(message.link.label)}>` : '';
  return {
    text: message.title,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: message.title.slice(0, 150), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: `${slackEscape(message.text)}${link}` } },
    ],
  };
}

/** Slack's mrkdwn reserves &, < and > (its docs: "Escaping text"). */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function teamsPayload(message: AlertMessage): Record<string, unknown> {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'TextBlock',
              text: message.title,
              weight: 'Bolder',
              size: 'Medium',
              wrap: true,
              color: message.event === 'alert.firing' ? 'Attention' : 'Good',
            },
            { type: 'TextBlock', text: message.text, wrap: true },
          ],
          ...(message.link && {
            actions: [{ type: 'Action.OpenUrl', title: message.link.label, url: message.link.url }],
          }),
        },
      },
    ],
  };
}

export function webhookPayload(message: AlertMessage): Record<string, unknown> {
  return {
    type: message.event,
    timestamp: message.at.toISOString(),
    data: { ...message.data, title: message.title, text: message.text, ...(message.link && { url: message.link.url }) },
  };
}

/** The e-mail: its subject and a plain-text body (no HTML: nothing to escape, nothing to render). */
export function mailContent(message: AlertMessage): { subject: string; text: string } {
  const link = message.link ? `\n\n${message.link.label}: ${message.link.url}` : '';
  return { subject: `[flowhook] ${message.title}`, text: `${message.text}${link}\n` };
}
