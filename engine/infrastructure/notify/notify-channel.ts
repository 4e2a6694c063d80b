// Sends one alert message through one alert channel (a connection of kind
// slack, teams, webhook or smtp, flow/connection-kinds/), with its secret as
// the engine decrypted it for this send only.
import { ConnectionType } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ConnectionSettingsInput } from '../../../flow/connection-kinds/connection-settings.ts';
import { smtpSettingsOf } from '../../../flow/connection-kinds/smtp-kind.ts';
import { signingKeyOf } from '../../../flow/connection-kinds/webhook-kind.ts';
import type { EgressPolicy } from '../../../flow/egress-policy.ts';
import type { AlertMessage } from './alert-message.ts';
import { slackPayload, teamsPayload, webhookPayload } from './channel-payloads.ts';
import { postGuarded } from './guarded-post.ts';
import { NotifyFailed } from './notify-errors.ts';
import { sendMail } from './smtp-sender.ts';
import { standardWebhooksHeaders } from './standard-webhooks-signature.ts';

export interface AlertChannel {
  name: string;
  type: ConnectionType;
  settings: ConnectionSettingsInput;
  secret: string;
}

export interface SendOptions {
  /** The operator's egress policy with the company's own list. */
  policy: EgressPolicy;
  timeoutMs: number;
}

export async function sendToChannel(channel: AlertChannel, message: AlertMessage, options: SendOptions): Promise<void> {
  const json = { 'content-type': 'application/json', 'user-agent': 'flowhook-alerts' };
  switch (channel.type) {
    case ConnectionType.SLACK:
    case ConnectionType.TEAMS: {
      // The URL is the secret: messages name its host only.
      const url = new URL(channel.secret);
      const payload = channel.type === ConnectionType.SLACK ? slackPayload(message) : teamsPayload(message);
      await postGuarded(
        { url, headers: json, body: JSON.stringify(payload), shownAs: `connection "${channel.name}" (${url.host})` },
        options.policy,
        options.timeoutMs,
      );
      return;
    }
    case ConnectionType.WEBHOOK: {
      const key = signingKeyOf(channel.secret);
      if (!key) throw new NotifyFailed(`connection "${channel.name}": its secret is no whsec_ signing secret`, false);
      const body = JSON.stringify(webhookPayload(message));
      const signature = standardWebhooksHeaders(key, {
        id: message.id,
        timestampSeconds: Math.floor(Date.now() / 1000),
        body,
      });
      const url = new URL(channel.settings.baseUrl);
      await postGuarded(
        { url, headers: { ...json, ...signature }, body, shownAs: `connection "${channel.name}" (${url.origin})` },
        options.policy,
        options.timeoutMs,
      );
      return;
    }
    case ConnectionType.SMTP:
      await sendMail(smtpSettingsOf(channel.settings), channel.secret, message, options);
      return;
    default:
      throw new NotifyFailed(
        `connection "${channel.name}" is no alert channel: use a slack, teams, webhook or smtp connection`,
        false,
      );
  }
}
