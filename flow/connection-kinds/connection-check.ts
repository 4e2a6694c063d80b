// What makes a connection's settings and secret valid, checked by the engine at
// `connection set`. The checks every kind shares are here; a kind adds its own
// (ConnectionKind.check).
import type { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { parseAllowedHost } from '../connection-pin.ts';
import { CONNECTION_KINDS, connectionKind } from './connection-kind-registry.ts';
import type { ConnectionKind } from './connection-kind.ts';
import { KIND_SETTINGS, type ConnectionSettingsInput } from './connection-settings.ts';
import { urlSettingProblems } from './url-setting.ts';
import { hasControlCharacter } from '../../common/control-characters.ts';

const MAX_SECRET_LENGTH = 8192;

/** Problems with a connection's settings and secret, each naming the setting (never quoting the secret). */
export function checkConnection(type: ConnectionType, settings: ConnectionSettingsInput, secret: string): string[] {
  const kind = connectionKind(type);
  if (!kind) return [`type: one of ${CONNECTION_KINDS.map((k) => k.name).join(', ')}`];
  const problems: string[] = [];
  for (const use of kind.settings)
    if (use.required && !settings[use.name]) problems.push(`${use.name}: required for ${kind.name} connections`);
  for (const { name } of KIND_SETTINGS) {
    if (settings[name] && !kind.settings.some((use) => use.name === name))
      problems.push(`${name}: not used by ${kind.name} connections`);
  }
  if (kind.purpose === 'alerts') {
    problems.push(...alertChannelProblems(kind, settings));
  } else if (!settings.baseUrl && settings.allowedHosts.length === 0) {
    problems.push(
      'baseUrl or allowedHosts: required, so the secret can only go where it is meant to (e.g. --base-url https://erp.example.com/api)',
    );
  }
  if (settings.baseUrl) problems.push(...urlSettingProblems(settings.baseUrl, 'baseUrl', true));
  for (const host of settings.allowedHosts) {
    if (!parseAllowedHost(host))
      problems.push(`allowedHosts: "${host}" is not a lower-case host, host:port (https) or http://host[:port]`);
  }
  problems.push(...(kind.check?.(settings) ?? []));
  if (secret === '') problems.push(`secret: the ${kind.secretName} is empty`);
  else if (secret.length > MAX_SECRET_LENGTH) problems.push(`secret: at most ${MAX_SECRET_LENGTH} characters`);
  else if (hasControlCharacter(secret))
    problems.push(`secret: the ${kind.secretName} contains a control character (a line break read from a file?)`);
  else problems.push(...(kind.checkSecret?.(secret) ?? []));
  return problems;
}

/** An alert channel sends only where its secret or its own settings say: a base URL only where it is the target. */
function alertChannelProblems(kind: ConnectionKind, settings: ConnectionSettingsInput): string[] {
  const problems: string[] = [];
  if (kind.usesBaseUrl && !settings.baseUrl) problems.push(`baseUrl: required for ${kind.name} connections`);
  if (!kind.usesBaseUrl && settings.baseUrl) problems.push(`baseUrl: not used by ${kind.name} connections`);
  if (settings.allowedHosts.length > 0) problems.push(`allowedHosts: not used by ${kind.name} connections`);
  return problems;
}
