// Turns the TLS part of the Temporal configuration into connection options for
// the worker's NativeConnection and the engine's client. It reads files, so it
// is not re-exported from flow/index.ts: workflow code never loads it.
import { readFileSync } from 'node:fs';
import type { TemporalSettings } from './temporal-settings.ts';

export function temporalTlsOptions(tls: TemporalSettings['tls']) {
  if (!tls) return undefined;
  if (tls === true) return true as const;
  return {
    serverNameOverride: tls.serverName,
    serverRootCACertificate: tls.caPath ? readFileSync(tls.caPath) : undefined,
    clientCertPair:
      tls.certPath && tls.keyPath ? { crt: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) } : undefined,
  };
}
