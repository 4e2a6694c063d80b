// The facade's configuration, read once from the environment into a frozen,
// typed object. This is the only facade file that touches process.env; a wrong
// value stops the process with a message naming the variable.

export type FacadeLogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface FacadeConfig {
  /** Port of the public OData endpoint; 0 picks a free one (tests). */
  port: number;
  /** The facade is the public entry point, so it listens on all interfaces by default. */
  host: string;
  /** The host platform's server instance segment of the path, e.g. `BC`. */
  instance: string;
  /** Base URL as callers see it (no trailing slash), for `@odata.context`. */
  publicUrl: string;
  /** The engine's Connect endpoint (HTTP/2 cleartext). */
  engineUrl: string;
  /** Sent as `authorization: Bearer …` on every engine call when set. */
  serviceToken?: string;
  /** Largest accepted request body; larger bodies are answered 413. */
  maxBodyBytes: number;
  logLevel: FacadeLogLevel;
}

export type FacadeEnv = Record<string, string | undefined>;

const DEFAULT_PORT = 7048;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const LOG_LEVELS: readonly FacadeLogLevel[] = ['debug', 'info', 'warn', 'error'];

export function readFacadeConfig(env: FacadeEnv = process.env): FacadeConfig {
  const port = readPort(env, 'FLOWHOOK_FACADE_PORT', DEFAULT_PORT);
  const publicUrl = readUrl(env, 'FLOWHOOK_PUBLIC_URL', defaultPublicUrl(port));
  return Object.freeze({
    port,
    host: env.FLOWHOOK_FACADE_HOST || '0.0.0.0',
    instance: readInstance(env),
    publicUrl,
    engineUrl: readUrl(env, 'FLOWHOOK_ENGINE_URL', 'http://127.0.0.1:7049'),
    serviceToken: readServiceToken(env),
    maxBodyBytes: readInt(env, 'FLOWHOOK_MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1),
    logLevel: readLogLevel(env),
  });
}

/** Where callers reach the facade when FLOWHOOK_PUBLIC_URL is unset. */
export function defaultPublicUrl(port: number): string {
  return `http://localhost:${port}`;
}

function readInt(env: FacadeEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

function readPort(env: FacadeEnv, name: string, fallback: number): number {
  const value = readInt(env, name, fallback, 0);
  if (value > 65535) throw new Error(`${name} must be a port number (0..65535), got "${env[name]}"`);
  return value;
}

function readUrl(env: FacadeEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  if (parsed.search || parsed.hash) throw new Error(`${name} must not have a query or fragment, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function readInstance(env: FacadeEnv): string {
  const raw = env.FLOWHOOK_INSTANCE || 'BC';
  // One path segment: it is matched against the first segment of every request path.
  if (!/^[A-Za-z0-9._~-]+$/.test(raw)) throw new Error(`FLOWHOOK_INSTANCE must be one URL path segment (letters, digits, . _ ~ -), got "${raw}"`);
  return raw;
}

function readServiceToken(env: FacadeEnv): string | undefined {
  const raw = env.FLOWHOOK_SERVICE_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  // Same rule as the engine, so a token the engine would refuse fails here first.
  if (raw.length < 16) throw new Error('FLOWHOOK_SERVICE_TOKEN must have at least 16 characters');
  return raw;
}

function readLogLevel(env: FacadeEnv): FacadeLogLevel {
  const raw = (env.FLOWHOOK_LOG_LEVEL || 'info').toLowerCase();
  const level = LOG_LEVELS.find((candidate) => candidate === raw);
  if (!level) throw new Error(`FLOWHOOK_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${env.FLOWHOOK_LOG_LEVEL}"`);
  return level;
}
