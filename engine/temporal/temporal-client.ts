// The engine's Temporal client: one connection per process, bounded by a
// connect timeout so an unreachable server is an error, never a hang. Its data
// converter encrypts doNotLogPayload executions' payloads like the worker's does.
import { Client, Connection } from '@temporalio/client';
import { flowDataConverter } from '../../workflows/codec/payload-codec.ts';
import type { TemporalSettings } from '../../workflows/shared/index.ts';
import { temporalTlsOptions } from '../../workflows/shared/temporal-tls.ts';

export async function connectTemporal(settings: TemporalSettings, timeoutMs: number, payloadKey?: Buffer): Promise<Client> {
  const connection = await Connection.connect({
    address: settings.address,
    tls: temporalTlsOptions(settings.tls),
    apiKey: settings.apiKey,
    connectTimeout: timeoutMs,
  });
  return new Client({ connection, namespace: settings.namespace, dataConverter: flowDataConverter(payloadKey) });
}
