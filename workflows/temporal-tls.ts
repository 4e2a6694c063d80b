// Turns the TLS part of the Temporal configuration into connection options;
// shared by the worker's NativeConnection (and mirrored by the engine's client).
import { readFileSync } from 'node:fs';
import type { TemporalSettings } from './shared/index.ts';

export function temporalTlsOptions(tls: TemporalSettings['tls']) {
  if (!tls) return undefined;
  if (tls === true) return true as const;
  return {
    serverNameOverride: tls.serverName,
    serverRootCACertificate: tls.caPath ? readFileSync(tls.caPath) : undefined,
    clientCertPair: tls.certPath && tls.keyPath ? { crt: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) } : undefined,
  };
}
