// The settings a connection kind may use besides its pin (base URL and allowed
// hosts, which every kind has): one line each, with the CLI option that gives
// it and the label `connection show` prints. Each is a field of the proto's
// ConnectionSettings under the same name; a kind says which it uses
// (ConnectionKind.settings). Storage, the admin service and the CLI walk this
// table, so a new setting is a proto field and one line here.
import type { ConnectionSettings } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';

interface SettingEntry {
  name: keyof ConnectionSettings;
  /** The `connection set` option, commander's spelling. */
  flags: string;
  label: string;
  /** Kept as given: white space may belong to the value. Others are trimmed. */
  untrimmed?: boolean;
}

export const KIND_SETTINGS = [
  { name: 'headerName', flags: '--header <name>', label: 'header' },
  // A password's user name may carry spaces on purpose.
  { name: 'username', flags: '--username <user>', label: 'username', untrimmed: true },
  { name: 'tokenUrl', flags: '--token-url <url>', label: 'token URL' },
  { name: 'clientId', flags: '--client-id <id>', label: 'client id' },
  { name: 'scope', flags: '--scope <scope>', label: 'scope' },
  { name: 'audience', flags: '--audience <audience>', label: 'audience' },
  { name: 'smtpHost', flags: '--smtp-host <host>', label: 'SMTP host' },
  { name: 'smtpPort', flags: '--smtp-port <port>', label: 'SMTP port' },
  { name: 'smtpSecurity', flags: '--smtp-security <mode>', label: 'SMTP security' },
  { name: 'mailFrom', flags: '--from <address>', label: 'from' },
  { name: 'mailTo', flags: '--to <addresses>', label: 'to' },
] as const satisfies readonly SettingEntry[];

export type KindSettingName = (typeof KIND_SETTINGS)[number]['name'];
export type KindSettings = Record<KindSettingName, string>;

/** A connection's settings as the engine checks and stores them; '' (or no hosts) where unset. */
export type ConnectionSettingsInput = { baseUrl: string; allowedHosts: string[] } & KindSettings;

/** The kind settings of any object that has them (a proto message, a stored column), '' where absent. */
export function kindSettingsOf(source: Partial<KindSettings>): KindSettings {
  return Object.fromEntries(KIND_SETTINGS.map(({ name }) => [name, source[name] ?? ''])) as KindSettings;
}

/** The kind settings as the engine keeps them: trimmed, except those whose white space may be meant. */
export function trimmedKindSettings(settings: KindSettings): KindSettings {
  return Object.fromEntries(
    KIND_SETTINGS.map((setting) => [
      setting.name,
      'untrimmed' in setting ? settings[setting.name] : settings[setting.name].trim(),
    ]),
  ) as KindSettings;
}
