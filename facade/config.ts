// The facade's configuration, read once from the environment into a frozen,
// typed object. This is the only facade file that touches process.env; a wrong
// value stops the process with a message naming the variable.
import { DEFAULT_MAX_TOKEN_AGE_SECONDS, type OAuthSettings, type TrustedIssuer } from './oauth/oauth-settings.ts';
import { readEngineToken } from '../common/engine-token.ts';
import { readEngineClientTls, type EngineClientTls } from '../common/engine-client-tls.ts';
import { readMetricsListener, readMetricsToken, type MetricsListenerSettings } from '../common/metrics/metrics-config.ts';
import { readTracingConfig, type TracingConfig } from '../common/tracing/tracing-config.ts';
import { parseTrustedProxies, type TrustedProxies } from './sender-address.ts';
import { withoutTrailingSlashes } from '../common/trailing-slashes.ts';

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
  /** The facade's service account token (invoke scope, forwards callers), sent as `authorization: Bearer …` on every engine call. */
  engineToken: string;
  /** FLOWHOOK_ENGINE_CA, FLOWHOOK_ENGINE_CLIENT_CERT/_KEY: how to trust (and prove itself to) an https engine. */
  engineTls?: EngineClientTls;
  /** Largest accepted request body; larger bodies are answered 413. */
  maxBodyBytes: number;
  logLevel: FacadeLogLevel;
  /** Bearer (OAuth 2.0 service-to-service) callers are accepted only when trusted issuers are configured. */
  oauth?: OAuthSettings;
  /**
   * FLOWHOOK_BASIC_AUTH (default on): web service access keys over HTTP Basic, the host platform's
   * legacy caller model. `off` makes a Bearer-only deployment; it needs FLOWHOOK_OAUTH_ISSUERS, or no caller could
   * authenticate at all.
   */
  basicAuth: boolean;
  /** PEM files: the facade serves HTTPS itself when set. */
  tls?: { certFile: string; keyFile: string };
  /** FLOWHOOK_FACADE_METRICS_PORT (default 7053; off) on FLOWHOOK_METRICS_HOST (default 127.0.0.1): GET /metrics for loopback clients or the token. */
  metrics?: MetricsListenerSettings;
  /** FLOWHOOK_METRICS_TOKEN: who else than loopback clients may read /metrics — and the only way to on the public port (common/metrics/metrics-access.ts). */
  metricsToken?: string;
  /** OpenTelemetry tracing from the standard OTEL_* variables; off unless they configure an exporter. */
  tracing: TracingConfig;
  /** FLOWHOOK_TRUSTED_PROXIES: peers whose X-Forwarded-For names the sender (sender-address.ts); none by default. */
  trustedProxies: TrustedProxies;
}

export type FacadeEnv = Record<string, string | undefined>;

const DEFAULT_PORT = 7048;
const DEFAULT_METRICS_PORT = 7053;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const LOG_LEVELS: readonly FacadeLogLevel[] = ['debug', 'info', 'warn', 'error'];

export function readFacadeConfig(env: FacadeEnv = process.env): FacadeConfig {
  const port = readPort(env, 'FLOWHOOK_FACADE_PORT', DEFAULT_PORT);
  const tls = readTls(env);
  const publicUrl = readUrl(env, 'FLOWHOOK_PUBLIC_URL', defaultPublicUrl(port, tls !== undefined));
  const oauth = readOAuth(env);
  return Object.freeze({
    port,
    host: env.FLOWHOOK_FACADE_HOST || '0.0.0.0',
    instance: readInstance(env),
    publicUrl,
    engineUrl: readUrl(env, 'FLOWHOOK_ENGINE_URL', 'http://127.0.0.1:7049'),
    engineToken: readEngineToken(env, 'facade'),
    engineTls: readEngineClientTls(env, readUrl(env, 'FLOWHOOK_ENGINE_URL', 'http://127.0.0.1:7049')),
    maxBodyBytes: readInt(env, 'FLOWHOOK_MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1),
    logLevel: readLogLevel(env),
    oauth,
    basicAuth: readBasicAuth(env, oauth !== undefined),
    tls,
    metrics: readMetricsListener(env, 'FLOWHOOK_FACADE_METRICS_PORT', 'FLOWHOOK_METRICS_HOST', DEFAULT_METRICS_PORT),
    metricsToken: readMetricsToken(env, 'FLOWHOOK_METRICS_TOKEN'),
    tracing: readTracingConfig(env),
    trustedProxies: parseTrustedProxies(env.FLOWHOOK_TRUSTED_PROXIES ?? '', 'FLOWHOOK_TRUSTED_PROXIES'),
  });
}

function readBasicAuth(env: FacadeEnv, bearer: boolean): boolean {
  const raw = env.FLOWHOOK_BASIC_AUTH;
  if (raw === undefined || raw === '' || raw === 'on') return true;
  if (raw !== 'off') throw new Error(`FLOWHOOK_BASIC_AUTH must be on or off, got "${raw}"`);
  if (!bearer) throw new Error('FLOWHOOK_BASIC_AUTH=off needs FLOWHOOK_OAUTH_ISSUERS: with neither, no caller could authenticate');
  return false;
}

/** Where callers reach the facade when FLOWHOOK_PUBLIC_URL is unset. */
export function defaultPublicUrl(port: number, secure = false): string {
  return `${secure ? 'https' : 'http'}://localhost:${port}`;
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
  return withoutTrailingSlashes(raw);
}

function readInstance(env: FacadeEnv): string {
  const raw = env.FLOWHOOK_INSTANCE || 'BC';
  // One path segment: it is matched against the first segment of every request path.
  if (!/^[A-Za-z0-9._~-]+$/.test(raw)) throw new Error(`FLOWHOOK_INSTANCE must be one URL path segment (letters, digits, . _ ~ -), got "${raw}"`);
  return raw;
}

/**
 * FLOWHOOK_OAUTH_ISSUERS: a comma list of issuer URLs, or a JSON array of
 * `{"issuer", "jwksUri"?, "audiences"?}`. FLOWHOOK_OAUTH_AUDIENCE: comma list
 * of accepted `aud` values (the API resource). Issuers must be https, except
 * on a loopback host (a local identity provider in development and tests).
 */
function readOAuth(env: FacadeEnv): OAuthSettings | undefined {
  const raw = env.FLOWHOOK_OAUTH_ISSUERS?.trim();
  if (!raw) return undefined;
  const issuers: TrustedIssuer[] = raw.startsWith('[') ? parseIssuerJson(raw) : list(raw).map((issuer) => ({ issuer }));
  if (issuers.length === 0) throw new Error('FLOWHOOK_OAUTH_ISSUERS names no issuer');
  for (const trusted of issuers) {
    checkIdpUrl('FLOWHOOK_OAUTH_ISSUERS', trusted.issuer);
    if (trusted.jwksUri) checkIdpUrl('FLOWHOOK_OAUTH_ISSUERS jwksUri', trusted.jwksUri);
  }
  const audiences = list(env.FLOWHOOK_OAUTH_AUDIENCE ?? '');
  if (audiences.length === 0 && issuers.some((trusted) => !trusted.audiences?.length)) {
    throw new Error('FLOWHOOK_OAUTH_AUDIENCE is required with FLOWHOOK_OAUTH_ISSUERS (the API resource tokens must be issued for)');
  }
  const clockToleranceSeconds = readInt(env, 'FLOWHOOK_OAUTH_CLOCK_TOLERANCE_SECONDS', 60, 0);
  if (clockToleranceSeconds > 300) throw new Error('FLOWHOOK_OAUTH_CLOCK_TOLERANCE_SECONDS must be at most 300');
  // 0 lifts the limit (an opening, so it is spelled out); anything else must leave room for the skew.
  const maxTokenAgeSeconds = readInt(env, 'FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS', DEFAULT_MAX_TOKEN_AGE_SECONDS, 0);
  if (maxTokenAgeSeconds !== 0 && maxTokenAgeSeconds < 60) throw new Error('FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS must be 0 (no limit) or at least 60');
  return Object.freeze({ issuers, audiences, clockToleranceSeconds, maxTokenAgeSeconds });
}

function parseIssuerJson(raw: string): TrustedIssuer[] {
  const problem = 'FLOWHOOK_OAUTH_ISSUERS must be a comma list of issuer URLs or a JSON array of {"issuer", "jwksUri"?, "audiences"?}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(problem);
  }
  if (!Array.isArray(parsed)) throw new Error(problem);
  return parsed.map((entry: unknown) => {
    const item = entry as Partial<Record<keyof TrustedIssuer, unknown>> | null;
    const audiences = item?.audiences;
    if (typeof item?.issuer !== 'string' || (item.jwksUri !== undefined && typeof item.jwksUri !== 'string')) throw new Error(problem);
    if (audiences !== undefined && !(Array.isArray(audiences) && audiences.every((a) => typeof a === 'string' && a !== ''))) throw new Error(problem);
    return { issuer: item.issuer, jwksUri: item.jwksUri as string | undefined, audiences: audiences as string[] | undefined };
  });
}

function checkIdpUrl(name: string, raw: string): void {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name}: "${raw}" is not a URL`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) throw new Error(`${name}: "${raw}" must be https (http only on a loopback host)`);
}

function list(raw: string): string[] {
  return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function readTls(env: FacadeEnv): FacadeConfig['tls'] {
  const certFile = env.FLOWHOOK_FACADE_TLS_CERT || undefined;
  const keyFile = env.FLOWHOOK_FACADE_TLS_KEY || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('FLOWHOOK_FACADE_TLS_CERT and FLOWHOOK_FACADE_TLS_KEY are set together (PEM files)');
  return { certFile, keyFile };
}

function readLogLevel(env: FacadeEnv): FacadeLogLevel {
  const raw = (env.FLOWHOOK_LOG_LEVEL || 'info').toLowerCase();
  const level = LOG_LEVELS.find((candidate) => candidate === raw);
  if (!level) throw new Error(`FLOWHOOK_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${env.FLOWHOOK_LOG_LEVEL}"`);
  return level;
}
