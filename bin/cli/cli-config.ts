// The admin CLI's configuration, read from the environment once. The admin
// token may come from FLOWHOOK_ADMIN_TOKEN or from the file `flowhook start`
// writes under the data directory, so a local installation needs no setup.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliDataDir } from '../data-dir.ts';
import { readEngineClientTls, type EngineClientTls } from '../../common/engine-client-tls.ts';
import { withoutTrailingSlashes } from '../../common/trailing-slashes.ts';

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

export const DEFAULT_ENGINE_URL = 'http://127.0.0.1:7049';

export function readCliConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  const dataDir = cliDataDir(env);
  const token = env.FLOWHOOK_ADMIN_TOKEN ? { value: env.FLOWHOOK_ADMIN_TOKEN, source: 'FLOWHOOK_ADMIN_TOKEN' } : tokenFromFile(dataDir);
  const url = engineUrl(env.FLOWHOOK_ENGINE_URL);
  return Object.freeze({
    engineUrl: url,
    engineTls: readEngineClientTls(env, url),
    dataDir,
    adminToken: token?.value,
    adminTokenSource: token?.source,
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

function engineUrl(raw: string | undefined): string {
  if (!raw) return DEFAULT_ENGINE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`FLOWHOOK_ENGINE_URL must be an http(s) URL such as ${DEFAULT_ENGINE_URL}, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`FLOWHOOK_ENGINE_URL must use http or https, got "${raw}"`);
  }
  // A trailing slash would double up with the RPC paths Connect appends.
  return withoutTrailingSlashes(raw);
}
