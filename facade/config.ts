// The facade's configuration, read once from the environment into a frozen, typed object,
// through the configuration table (common/configuration/). This is the only facade file that
// touches process.env; a wrong value stops the process with a message naming the variable.
import type { OAuthSettings, TrustedIssuer } from './oauth/oauth-settings.ts';
import { readSettings, type Env } from '../common/configuration/read-settings.ts';
import type { Settings } from '../common/configuration/configuration-table.ts';
import { url } from '../common/configuration/values/url-value.ts';
import { ValueError } from '../common/configuration/values/value-type.ts';
import { defaultPublicUrl } from '../common/default-public-url.ts';
import { readEngineToken } from '../common/engine-token.ts';
import { readEngineClientTls, type EngineClientTls } from '../common/engine-client-tls.ts';
import { metricsListener, type MetricsListenerSettings } from '../common/metrics/metrics-config.ts';
import { readTracingConfig, type TracingConfig } from '../common/tracing/tracing-config.ts';
import { parseTrustedProxies, type TrustedProxies } from './sender-address.ts';

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
  /** FLOWHOOK_DELIVERY_LOG (default on) and FLOWHOOK_DELIVERY_BUFFER: the reports waiting for the engine, at most (delivery-reporter.ts). */
  deliveryLog?: { capacity: number };
}

type FacadeSettings = Settings<'facade'>;

export function readFacadeConfig(env: Env = process.env): FacadeConfig {
  const settings = readSettings(env, 'facade');
  const port = settings.FLOWHOOK_FACADE_PORT;
  const tls = readTls(settings);
  const oauth = readOAuth(settings);
  const engineUrl = settings.FLOWHOOK_ENGINE_URL;
  return Object.freeze({
    port,
    host: settings.FLOWHOOK_FACADE_HOST,
    instance: settings.FLOWHOOK_INSTANCE,
    publicUrl: settings.FLOWHOOK_PUBLIC_URL ?? defaultPublicUrl(port, tls !== undefined),
    engineUrl,
    engineToken: readEngineToken(settings, 'facade'),
    engineTls: readEngineClientTls(settings, engineUrl),
    maxBodyBytes: settings.FLOWHOOK_MAX_BODY_BYTES,
    logLevel: settings.FLOWHOOK_LOG_LEVEL,
    oauth,
    basicAuth: readBasicAuth(settings, oauth !== undefined),
    tls,
    metrics: metricsListener(settings.FLOWHOOK_FACADE_METRICS_PORT, settings.FLOWHOOK_METRICS_HOST),
    metricsToken: settings.FLOWHOOK_METRICS_TOKEN,
    tracing: readTracingConfig(settings),
    trustedProxies: parseTrustedProxies(settings.FLOWHOOK_TRUSTED_PROXIES ?? '', 'FLOWHOOK_TRUSTED_PROXIES'),
    deliveryLog: settings.FLOWHOOK_DELIVERY_LOG === 'on' ? { capacity: settings.FLOWHOOK_DELIVERY_BUFFER } : undefined,
  });
}

function readBasicAuth(settings: FacadeSettings, bearer: boolean): boolean {
  if (settings.FLOWHOOK_BASIC_AUTH === 'on') return true;
  if (!bearer)
    throw new Error('FLOWHOOK_BASIC_AUTH=off needs FLOWHOOK_OAUTH_ISSUERS: with neither, no caller could authenticate');
  return false;
}

/**
 * FLOWHOOK_OAUTH_ISSUERS: a comma list of issuer URLs, or a JSON array of
 * `{"issuer", "jwksUri"?, "audiences"?}`. FLOWHOOK_OAUTH_AUDIENCE: comma list
 * of accepted `aud` values (the API resource). Issuers must be https, except
 * on a loopback host (a local identity provider in development and tests).
 */
function readOAuth(settings: FacadeSettings): OAuthSettings | undefined {
  const raw = settings.FLOWHOOK_OAUTH_ISSUERS;
  if (raw === undefined) return undefined;
  const issuers: TrustedIssuer[] = raw.startsWith('[') ? parseIssuerJson(raw) : list(raw).map((issuer) => ({ issuer }));
  if (issuers.length === 0) throw new Error('FLOWHOOK_OAUTH_ISSUERS names no issuer');
  for (const trusted of issuers) {
    checkIdpUrl('FLOWHOOK_OAUTH_ISSUERS', trusted.issuer);
    if (trusted.jwksUri) checkIdpUrl('FLOWHOOK_OAUTH_ISSUERS jwksUri', trusted.jwksUri);
  }
  const audiences = settings.FLOWHOOK_OAUTH_AUDIENCE ?? [];
  if (audiences.length === 0 && issuers.some((trusted) => !trusted.audiences?.length)) {
    throw new Error(
      'FLOWHOOK_OAUTH_AUDIENCE is required with FLOWHOOK_OAUTH_ISSUERS (the API resource tokens must be issued for)',
    );
  }
  // 0 lifts the age limit (an opening, so it is spelled out); anything else must leave room for the skew.
  return Object.freeze({
    issuers,
    audiences,
    clockToleranceSeconds: settings.FLOWHOOK_OAUTH_CLOCK_TOLERANCE_SECONDS,
    maxTokenAgeSeconds: settings.FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS,
  });
}

function parseIssuerJson(raw: string): TrustedIssuer[] {
  const problem =
    'FLOWHOOK_OAUTH_ISSUERS must be a comma list of issuer URLs or a JSON array of {"issuer", "jwksUri"?, "audiences"?}';
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
    if (typeof item?.issuer !== 'string' || (item.jwksUri !== undefined && typeof item.jwksUri !== 'string'))
      throw new Error(problem);
    if (
      audiences !== undefined &&
      !(Array.isArray(audiences) && audiences.every((a) => typeof a === 'string' && a !== ''))
    )
      throw new Error(problem);
    return {
      issuer: item.issuer,
      jwksUri: item.jwksUri as string | undefined,
      audiences: audiences as string[] | undefined,
    };
  });
}

/** The same rule as every URL signing keys come from: https, http only on a loopback host. */
const IDP_URL = url({ secure: true });

function checkIdpUrl(name: string, raw: string): void {
  try {
    IDP_URL.parse(raw);
  } catch (error) {
    if (error instanceof ValueError) throw new Error(`${name}: "${raw}" ${error.message}`);
    throw error;
  }
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function readTls(settings: FacadeSettings): FacadeConfig['tls'] {
  const certFile = settings.FLOWHOOK_FACADE_TLS_CERT;
  const keyFile = settings.FLOWHOOK_FACADE_TLS_KEY;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new Error('FLOWHOOK_FACADE_TLS_CERT and FLOWHOOK_FACADE_TLS_KEY are set together (PEM files)');
  return { certFile, keyFile };
}
