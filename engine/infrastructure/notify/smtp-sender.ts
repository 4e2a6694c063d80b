// Sends an alert by e-mail through the connection's SMTP server (nodemailer),
// to the address the egress guard checked: the host is resolved and checked
// once, the socket goes to that address, and TLS still verifies the host name
// (servername). STARTTLS is required unless the connection says `tls` (TLS
// from the first byte) or `none` (clear text, chosen on purpose). The
// Message-ID is the message's stable id, so a repeat is recognisable.
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import type { EgressPolicy } from '../../../flow/egress-policy.ts';
import type { SmtpSettings } from '../../../flow/connection-kinds/smtp-kind.ts';
import type { AlertMessage } from './alert-message.ts';
import { mailContent } from './channel-payloads.ts';
import { checkedAddresses } from './egress-guard.ts';
import { NotifyFailed } from './notify-errors.ts';

export async function sendMail(
  settings: SmtpSettings,
  password: string,
  message: AlertMessage,
  options: { policy: EgressPolicy; timeoutMs: number },
): Promise<void> {
  const [address] = await checkedAddresses(settings.host, settings.port, options.policy);
  const transport = nodemailer.createTransport({
    host: address!.address,
    port: settings.port,
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    auth: { user: settings.username, pass: password },
    tls: { servername: isIP(settings.host) ? undefined : settings.host },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const { subject, text } = mailContent(message);
  try {
    await transport.sendMail({
      from: settings.from,
      to: settings.to,
      subject,
      text,
      messageId: `<${message.id}@flowhook>`,
      headers: { 'X-Flowhook-Event': message.event },
    });
  } catch (error) {
    throw mailFailure(settings, error as Error & { code?: string; responseCode?: number });
  } finally {
    transport.close();
  }
}

/** nodemailer's error codes and the server's reply code; never its message, which may quote what was sent. */
function mailFailure(settings: SmtpSettings, error: Error & { code?: string; responseCode?: number }): NotifyFailed {
  const where = `SMTP server ${settings.host}:${settings.port}`;
  if (error.code === 'EAUTH') return new NotifyFailed(`${where} refused the user name or password`, false);
  if (error.code === 'ETLS' || /STARTTLS/i.test(error.message))
    return new NotifyFailed(
      `${where}: TLS failed or STARTTLS is not offered (the connection's --smtp-security is ${settings.security})`,
      false,
    );
  if (error.responseCode !== undefined)
    return new NotifyFailed(`${where} answered ${error.responseCode}`, error.responseCode < 500);
  return new NotifyFailed(`${where}: ${error.code ?? 'failed'}`, true);
}
