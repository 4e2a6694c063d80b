// The engine's Temporal client: one connection per process, bounded by a
// connect timeout so an unreachable server is an error, never a hang. Its data
// converter encrypts doNotLogPayload executions' payloads like the worker's does.
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { flowDataConverter } from '../../workflows/codec/payload-codec.ts';
import type { TemporalSettings } from '../../workflows/shared/index.ts';

export async function connectTemporal(settings: TemporalSettings, timeoutMs: number, payloadKey?: Buffer): Promise<Client> {
  const connection = await Connection.connect({
    address: settings.address,
    tls: tlsOptions(settings.tls),
    apiKey: settings.apiKey,
    connectTimeout: timeoutMs,
  });
  return new Client({ connection, namespace: settings.namespace, dataConverter: flowDataConverter(payloadKey) });
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
