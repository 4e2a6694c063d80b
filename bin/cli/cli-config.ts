// The CLI's configuration, read from the environment once through the configuration table
// (common/configuration/). The admin token may come from FLOWHOOK_ADMIN_TOKEN or from the file
// `flowhook start` writes under the data directory, so a local installation needs no setup.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliDataDir } from '../data-dir.ts';
import { readSettings, type Env } from '../../common/configuration/read-settings.ts';
import { readEngineClientTls, type EngineClientTls } from '../../common/engine-client-tls.ts';

export interface CliConfig {
  /** Base URL of the engine's Connect server (HTTP/2 cleartext). */
  engineUrl: string;
  dataDir: string;
  /** Undefined when neither the variable nor the token file supplies one. */
  adminToken: string | undefined;
  /** Where the token came from, for messages: the variable name or the file path. */
  adminTokenSource: string | undefined;
  /** FLOWHOOK_ENGINE_CA, FLOWHOOK_ENGINE_CLIENT_CERT/_KEY for an https engine. */
  engineTls?: EngineClientTls;
}

/** What the admin commands read. */
export function readCliConfig(env: Env = process.env): CliConfig {
  const settings = readSettings(env, 'cli');
  const dataDir = cliDataDir(settings.FLOWHOOK_DATA_DIR);
  const variable = settings.FLOWHOOK_ADMIN_TOKEN;
  const token = variable ? { value: variable, source: 'FLOWHOOK_ADMIN_TOKEN' } : tokenFromFile(dataDir);
  // A trailing slash would double up with the RPC paths Connect appends: the URL type drops it.
  const engineUrl = settings.FLOWHOOK_ENGINE_URL;
  return Object.freeze({
    engineUrl,
    engineTls: readEngineClientTls(settings, engineUrl),
    dataDir,
    adminToken: token?.value,
    adminTokenSource: token?.source,
  });
}

export interface PayloadKeyCommandConfig {
  /** FLOWHOOK_PAYLOAD_KEY_FILE, when set. */
  keyFile: string | undefined;
  /** Where `flowhook start` keeps its key file. */
  dataDir: string;
}

/** What `flowhook payload-key rotate` reads: it edits a local file and reaches no engine. */
export function readPayloadKeyCommandConfig(env: Env = process.env): PayloadKeyCommandConfig {
  const settings = readSettings(env, 'payload-key');
  return Object.freeze({
    keyFile: settings.FLOWHOOK_PAYLOAD_KEY_FILE,
    dataDir: cliDataDir(settings.FLOWHOOK_DATA_DIR),
  });
}

/** The admin token, or an error that tells the operator how to provide one. */
export function requireAdminToken(config: CliConfig): string {
  if (config.adminToken) return config.adminToken;
  throw new Error(
    `no admin token: is \`flowhook start\` running? It writes ${join(config.dataDir, 'admin-token')} on its first run ` +
      `(set FLOWHOOK_DATA_DIR if it keeps its data elsewhere); against an engine run apart, set FLOWHOOK_ADMIN_TOKEN to its admin token`,
  );
}

function tokenFromFile(dataDir: string): { value: string; source: string } | undefined {
  const path = join(dataDir, 'admin-token');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // Missing or unreadable: admin commands report it when they need the token.
    return undefined;
  }
  const value = text.trim();
  return value ? { value, source: path } : undefined;
}
