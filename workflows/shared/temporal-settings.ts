// How to reach Temporal, from the TEMPORAL_* variables the Temporal CLI and
// SDKs use. Shared by the engine's client and the worker; callers pass in the
// environment object their config.ts read.

export interface TemporalSettings {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: { certPath?: string; keyPath?: string; caPath?: string; serverName?: string } | true;
}

/** TEMPORAL_* variables as the Temporal CLI and SDKs name them. */
export function readTemporalSettings(env: Record<string, string | undefined>): TemporalSettings {
  const tlsFiles = env.TEMPORAL_TLS_CERT || env.TEMPORAL_TLS_KEY || env.TEMPORAL_TLS_CA;
  const tlsOn = env.TEMPORAL_TLS === 'true' || env.TEMPORAL_TLS === '1' || Boolean(env.TEMPORAL_API_KEY);
  const temporal: TemporalSettings = {
    address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
  };
  if (env.TEMPORAL_API_KEY) temporal.apiKey = env.TEMPORAL_API_KEY;
  if (tlsFiles) {
    temporal.tls = { certPath: env.TEMPORAL_TLS_CERT, keyPath: env.TEMPORAL_TLS_KEY, caPath: env.TEMPORAL_TLS_CA, serverName: env.TEMPORAL_TLS_SERVER_NAME };
  } else if (tlsOn) {
    temporal.tls = true;
  }
  return temporal;
}

