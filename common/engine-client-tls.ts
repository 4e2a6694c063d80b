// TLS settings the engine's clients (facade, worker, CLI) need to reach an
// engine served over https://. FLOWHOOK_ENGINE_CA, when set, is the ONLY CA
// trusted for the engine, not one more beside the system roots: the engine is
// an internal service with a private CA, and trusting public roots as well
// would let any publicly issued certificate for the engine's name pass.
// Without it, an https:// engine URL is verified against the system roots.
// FLOWHOOK_ENGINE_CLIENT_CERT/_KEY present a client certificate to an engine
// that requires one (mutual TLS).
import type { SecureClientSessionOptions } from 'node:http2';
import type { SettingValues } from './configuration/configuration-table.ts';
import { readCertificateAndKey, readPemCertificates } from './pem-files.ts';

export interface EngineClientTls {
  /** PEM CA bundle that replaces the system roots for the engine's certificate. */
  ca?: Buffer;
  /** PEM client certificate chain and its key, for an engine that requires mTLS. */
  cert?: Buffer;
  key?: Buffer;
}

const TLS_VARIABLES = ['FLOWHOOK_ENGINE_CA', 'FLOWHOOK_ENGINE_CLIENT_CERT', 'FLOWHOOK_ENGINE_CLIENT_KEY'] as const;

export type EngineClientTlsSettings = Partial<SettingValues<(typeof TLS_VARIABLES)[number]>>;

/** The client's TLS settings; undefined when none is set (h2c, or https:// against the system roots). */
export function readEngineClientTls(settings: EngineClientTlsSettings, engineUrl: string): EngineClientTls | undefined {
  const configured = TLS_VARIABLES.filter((name) => settings[name]);
  if (configured.length === 0) return undefined;
  // A CA or client certificate on a cleartext URL would be silently ignored, leaving the link unencrypted.
  if (new URL(engineUrl).protocol !== 'https:') {
    throw new Error(
      `${configured.join(', ')} ${configured.length === 1 ? 'is' : 'are'} set but the engine URL ${engineUrl} is not TLS: use https:// in FLOWHOOK_ENGINE_URL`,
    );
  }
  const tls: EngineClientTls = {};
  const caPath = settings.FLOWHOOK_ENGINE_CA || undefined;
  if (caPath !== undefined) tls.ca = readPemCertificates('FLOWHOOK_ENGINE_CA', caPath).pem;
  const identity = readCertificateAndKey(settings, 'FLOWHOOK_ENGINE_CLIENT_CERT', 'FLOWHOOK_ENGINE_CLIENT_KEY');
  if (identity !== undefined) {
    tls.cert = identity.cert;
    tls.key = identity.key;
  }
  return tls;
}

/** node:http2 connect() options for the engine; undefined leaves Node's defaults (system roots, no client certificate). */
export function engineSessionOptions(tls: EngineClientTls | undefined): SecureClientSessionOptions | undefined {
  if (tls === undefined) return undefined;
  return { minVersion: 'TLSv1.2', ...tls };
}

/**
 * Spread into createConnectTransport({ baseUrl, httpVersion: '2', ... }).
 * A transport given a sessionManager ignores nodeOptions: hand
 * engineSessionOptions(tls) to the Http2SessionManager instead.
 */
export function engineTransportOptions(tls: EngineClientTls | undefined): { nodeOptions?: SecureClientSessionOptions } {
  const nodeOptions = engineSessionOptions(tls);
  return nodeOptions === undefined ? {} : { nodeOptions };
}
