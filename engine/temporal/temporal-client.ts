// The engine's Temporal client: one connection per process, bounded by a
// connect timeout so an unreachable server is an error, never a hang.
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { TemporalSettings } from '../../workflows/shared/index.ts';

export async function connectTemporal(settings: TemporalSettings, timeoutMs: number): Promise<Client> {
  const connection = await Connection.connect({
    address: settings.address,
    tls: tlsOptions(settings.tls),
    apiKey: settings.apiKey,
    connectTimeout: timeoutMs,
  });
  return new Client({ connection, namespace: settings.namespace });
}

function tlsOptions(tls: TemporalSettings['tls']) {
  if (!tls) return undefined;
  if (tls === true) return true as const;
  return {
    serverNameOverride: tls.serverName,
    serverRootCACertificate: tls.caPath ? readFileSync(tls.caPath) : undefined,
    clientCertPair: tls.certPath && tls.keyPath ? { crt: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) } : undefined,
  };
}
