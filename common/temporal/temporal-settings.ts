// How to reach Temporal, from the TEMPORAL_* variables the Temporal CLI and
// SDKs use. Shared by the engine's client and the worker; their config.ts
// read the variables through the configuration table and pass them in.

export interface TemporalSettings {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: { certPath?: string; keyPath?: string; caPath?: string; serverName?: string } | true;
}

/** The TEMPORAL_* variables, parsed (common/configuration/table/dependency-settings.ts). */
export interface TemporalVariables {
  readonly TEMPORAL_ADDRESS: string;
  readonly TEMPORAL_NAMESPACE: string;
  readonly TEMPORAL_TLS: boolean;
  readonly TEMPORAL_TLS_CERT: string | undefined;
  readonly TEMPORAL_TLS_KEY: string | undefined;
  readonly TEMPORAL_TLS_CA: string | undefined;
  readonly TEMPORAL_TLS_SERVER_NAME: string | undefined;
  readonly TEMPORAL_API_KEY: string | undefined;
}

/** TLS is on with a client certificate, a CA, an API key (Temporal Cloud) or TEMPORAL_TLS=true. */
export function readTemporalSettings(variables: TemporalVariables): TemporalSettings {
  const temporal: TemporalSettings = { address: variables.TEMPORAL_ADDRESS, namespace: variables.TEMPORAL_NAMESPACE };
  if (variables.TEMPORAL_API_KEY) temporal.apiKey = variables.TEMPORAL_API_KEY;
  if (variables.TEMPORAL_TLS_CERT || variables.TEMPORAL_TLS_KEY || variables.TEMPORAL_TLS_CA) {
    temporal.tls = {
      certPath: variables.TEMPORAL_TLS_CERT,
      keyPath: variables.TEMPORAL_TLS_KEY,
      caPath: variables.TEMPORAL_TLS_CA,
      serverName: variables.TEMPORAL_TLS_SERVER_NAME,
    };
  } else if (variables.TEMPORAL_TLS || temporal.apiKey) {
    temporal.tls = true;
  }
  return temporal;
}
