// The connection kinds, one entry each: how the CLI and flow authors spell it,
// which settings it needs, and how those are checked. Shared by the engine
// (checks at `connection set`) and the worker (reads the kind it is handed);
// how each kind signs a request lives beside the HTTP client
// (workflows/outbound/connection-credentials.ts).
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { parseAllowedHost } from './connection-pin.ts';

export { connectionAllows } from './connection-pin.ts';

export interface ConnectionSettingsInput {
  baseUrl: string;
  allowedHosts: string[];
  headerName: string;
  username: string;
  tokenUrl: string;
  clientId: string;
  scope: string;
  audience: string;
}

type SettingName = keyof ConnectionSettingsInput;

interface ConnectionKind {
  type: ConnectionType;
  /** The CLI's `--type` spelling. */
  name: string;
  /** What the secret is, for prompts and messages. */
  secretName: string;
  required: SettingName[];
  /** Settings this kind uses besides base URL and allowed hosts; others must stay empty. */
  uses: SettingName[];
}

export const CONNECTION_KINDS: readonly ConnectionKind[] = [
  { type: ConnectionType.API_KEY, name: 'api-key', secretName: 'API key', required: [], uses: ['headerName'] },
  { type: ConnectionType.BASIC, name: 'basic', secretName: 'password', required: ['username'], uses: ['username'] },
  { type: ConnectionType.BEARER, name: 'bearer', secretName: 'token', required: [], uses: [] },
  { type: ConnectionType.OAUTH2_CLIENT_CREDENTIALS, name: 'oauth2-client-credentials', secretName: 'client secret', required: ['tokenUrl', 'clientId'], uses: ['tokenUrl', 'clientId', 'scope', 'audience'] },
];

export const DEFAULT_API_KEY_HEADER = 'X-API-Key';
export const CONNECTION_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const MAX_SECRET_LENGTH = 8192;
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FORBIDDEN_KEY_HEADERS = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'cookie', 'te', 'upgrade', 'idempotency-key']);

export function connectionKind(type: ConnectionType): ConnectionKind | undefined {
  return CONNECTION_KINDS.find((kind) => kind.type === type);
}

export function connectionKindNamed(name: string): ConnectionKind | undefined {
  return CONNECTION_KINDS.find((kind) => kind.name === name.toLowerCase());
}

/** Problems with a connection's settings and secret, each naming the setting (never quoting the secret). */
export function checkConnection(type: ConnectionType, settings: ConnectionSettingsInput, secret: string): string[] {
  const kind = connectionKind(type);
  if (!kind) return [`type: one of ${CONNECTION_KINDS.map((k) => k.name).join(', ')}`];
  const problems: string[] = [];
  for (const name of kind.required) if (!settings[name]) problems.push(`${name}: required for ${kind.name} connections`);
  for (const name of ['headerName', 'username', 'tokenUrl', 'clientId', 'scope', 'audience'] as const) {
    if (settings[name] && !kind.uses.includes(name)) problems.push(`${name}: not used by ${kind.name} connections`);
  }
  if (!settings.baseUrl && settings.allowedHosts.length === 0) {
    problems.push('baseUrl or allowedHosts: required, so the secret can only go where it is meant to (e.g. --base-url https://erp.example.com/api)');
  }
  if (settings.baseUrl) problems.push(...checkUrl(settings.baseUrl, 'baseUrl', true));
  if (settings.tokenUrl) problems.push(...checkUrl(settings.tokenUrl, 'tokenUrl', false));
  for (const host of settings.allowedHosts) {
    if (!parseAllowedHost(host)) problems.push(`allowedHosts: "${host}" is not a lower-case host, host:port (https) or http://host[:port]`);
  }
  if (settings.headerName && (!HEADER_TOKEN.test(settings.headerName) || FORBIDDEN_KEY_HEADERS.has(settings.headerName.toLowerCase()))) {
    problems.push(`headerName: "${settings.headerName}" cannot carry a key`);
  }
  if (settings.username.includes(':')) problems.push('username: must not contain ":" (Basic authentication splits on it)');
  if (secret === '') problems.push(`secret: the ${kind.secretName} is empty`);
  else if (secret.length > MAX_SECRET_LENGTH) problems.push(`secret: at most ${MAX_SECRET_LENGTH} characters`);
  else if (/[\u0000-\u001f\u007f]/.test(secret)) problems.push(`secret: the ${kind.secretName} contains a control character (a line break read from a file?)`);
  return problems;
}

function checkUrl(raw: string, field: string, isBase: boolean): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [`${field}: "${raw}" is not an absolute URL`];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`${field}: must be http or https`);
  if (url.username || url.password) problems.push(`${field}: must not contain credentials (they belong in the secret)`);
  if (isBase && (url.search || url.hash)) problems.push(`${field}: must not have a query or fragment`);
  return problems;
}
