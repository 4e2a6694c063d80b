// smtp: e-mail through an SMTP server with user name and password (the
// secret). Secure by default: STARTTLS is required on the submission port
// 587; `tls` speaks TLS from the first byte (port 465); `none` sends in clear
// text and must be chosen on purpose (a relay on loopback).
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { notForRequests } from './alert-channel.ts';
import type { ConnectionKind } from './connection-kind.ts';
import type { ConnectionSettingsInput } from './connection-settings.ts';

export const SMTP_SECURITY = ['starttls', 'tls', 'none'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];
const HOST = /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i;
/** One address, checked loosely: the server has the last word. */
const ADDRESS = /^[^\s@<>,"]+@[^\s@<>,"]+$/;

export interface SmtpSettings {
  host: string;
  port: number;
  security: SmtpSecurity;
  from: string;
  to: string[];
  username: string;
}

/** The settings as the sender uses them, with their defaults. */
export function smtpSettingsOf(
  settings: Pick<
    ConnectionSettingsInput,
    'smtpHost' | 'smtpPort' | 'smtpSecurity' | 'mailFrom' | 'mailTo' | 'username'
  >,
): SmtpSettings {
  const security = (settings.smtpSecurity || 'starttls') as SmtpSecurity;
  return {
    host: settings.smtpHost.replace(/^\[(.*)\]$/, '$1'),
    port: Number(settings.smtpPort) || (security === 'tls' ? 465 : 587),
    security,
    from: settings.mailFrom,
    to: addressesOf(settings.mailTo),
    username: settings.username,
  };
}

function addressesOf(list: string): string[] {
  return list
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
}

export const smtpKind: ConnectionKind<ConnectionType.SMTP> = {
  type: ConnectionType.SMTP,
  name: 'smtp',
  secretName: 'password',
  purpose: 'alerts',
  settings: [
    { name: 'smtpHost', required: true, help: 'the SMTP server' },
    { name: 'smtpPort', help: 'its port (default 587, or 465 with --smtp-security tls)', default: '587' },
    {
      name: 'smtpSecurity',
      help: 'starttls (required STARTTLS, the default), tls (TLS from the start) or none (clear text)',
      default: 'starttls',
    },
    { name: 'mailFrom', required: true, help: 'the sender address' },
    { name: 'mailTo', required: true, help: 'the recipients, comma-separated' },
    { name: 'username', required: true, help: 'the SMTP user name' },
  ],
  check(settings) {
    const problems: string[] = [];
    if (settings.smtpHost && !HOST.test(settings.smtpHost)) problems.push('smtpHost: a host name or IP address');
    const port = Number(settings.smtpPort);
    if (settings.smtpPort && !(Number.isInteger(port) && port >= 1 && port <= 65535))
      problems.push('smtpPort: a port from 1 to 65535');
    if (settings.smtpSecurity && !(SMTP_SECURITY as readonly string[]).includes(settings.smtpSecurity))
      problems.push(`smtpSecurity: one of ${SMTP_SECURITY.join(', ')}`);
    if (settings.mailFrom && !ADDRESS.test(settings.mailFrom)) problems.push('mailFrom: one e-mail address');
    const to = addressesOf(settings.mailTo);
    if (settings.mailTo && (to.length === 0 || to.some((address) => !ADDRESS.test(address))))
      problems.push('mailTo: e-mail addresses, comma-separated');
    if (to.length > 50) problems.push('mailTo: at most 50 recipients');
    return problems;
  },
  authenticate: notForRequests('SMTP'),
};
