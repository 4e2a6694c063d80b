// Hands the delivery log's reports to the engine in batches, off the hot path: a
// request's report is queued after its answer was sent and nothing awaits it.
// Memory is bounded: at most `capacity` reports, and at most `maxBytes` of
// their bodies and headers, wait; beyond, new ones are dropped and counted
// (flowhook_facade_deliveries_dropped_total), never blocking a caller. A batch goes when `batchSize` reports wait or every
// `intervalMs`, one request at a time; a batch the engine could not take goes
// back to the front of the queue (within the capacity) and is tried again on
// the next tick. close() sends what waits (a few tries), bounded in time.
import { create } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { Logger } from 'pino';
import {
  DeliveryReportSchema,
  type DeliveryLogService,
  type DeliveryReport,
} from '../proto/gen/flowhook/engine/v1/delivery_service_pb.js';

export type DeliveryLogClient = Pick<Client<typeof DeliveryLogService>, 'recordDeliveries'>;

/** A report as a request's end knows it; the time is turned into an age when its batch leaves. */
export interface PendingDelivery extends Omit<Partial<DeliveryReport>, '$typeName' | 'receivedMsAgo' | 'headers'> {
  /** performance.now() when the request arrived. */
  receivedAt: number;
  headers: [string, string][];
}

export interface DeliveryReporter {
  report(delivery: PendingDelivery): void;
  /** Sends what waits (at most `closeTimeoutMs`) and stops. */
  close(): Promise<void>;
}

export interface DeliveryReporterOptions {
  client: DeliveryLogClient;
  logger: Logger;
  capacity: number;
  /** What the waiting reports' bodies and headers may add up to (default 64 MiB). */
  maxBytes?: number;
  /** Counts a dropped report (the metric). */
  dropped?: () => void;
  batchSize?: number;
  intervalMs?: number;
  closeTimeoutMs?: number;
}

/** The engine takes at most this many in one RecordDeliveries. */
export const MAX_BATCH = 1000;
const DEFAULT_BATCH = 500;
const DEFAULT_INTERVAL_MS = 1000;
const DEFAULT_CLOSE_TIMEOUT_MS = 5000;
const CLOSE_ATTEMPTS = 3;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** A failing engine is logged once per this long, not once per batch. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

export function createDeliveryReporter(options: DeliveryReporterOptions): DeliveryReporter {
  const { client, logger, capacity } = options;
  const batchSize = Math.min(options.batchSize ?? DEFAULT_BATCH, MAX_BATCH);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let queue: PendingDelivery[] = [];
  let queuedBytes = 0;
  let sending: Promise<void> | undefined;
  let lastFailureLog = -Infinity;
  let closed = false;
  const timer = setInterval(() => void flush(), options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();

  function drop(count: number): void {
    for (let i = 0; i < count; i++) options.dropped?.();
  }

  function flush(): Promise<void> {
    sending ??= sendAll().finally(() => (sending = undefined));
    return sending;
  }

  async function sendAll(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, batchSize);
      queue = queue.slice(batch.length);
      queuedBytes -= batch.reduce((sum, delivery) => sum + sizeOf(delivery), 0);
      const now = performance.now();
      try {
        await client.recordDeliveries(
          { deliveries: batch.map((delivery) => toReport(delivery, now)) },
          { timeoutMs: 10_000 },
        );
      } catch (error) {
        // Back to the front, as far as the capacity allows: the newest waiting ones are dropped first.
        const room = Math.max(0, capacity - batch.length);
        drop(Math.max(0, queue.length - room));
        queue = [...batch, ...queue.slice(0, room)];
        queuedBytes = queue.reduce((sum, delivery) => sum + sizeOf(delivery), 0);
        if (performance.now() - lastFailureLog > FAILURE_LOG_INTERVAL_MS) {
          lastFailureLog = performance.now();
          logger.warn(
            { waiting: queue.length, reason: error instanceof Error ? error.message.split('\n')[0] : String(error) },
            'delivery log: the engine did not take reports; retrying',
          );
        }
        return;
      }
    }
  }

  return {
    report(delivery) {
      const size = sizeOf(delivery);
      if (closed || queue.length >= capacity || queuedBytes + size > maxBytes) {
        drop(1);
        return;
      }
      queue.push(delivery);
      queuedBytes += size;
      if (queue.length >= batchSize && !sending) void flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      const deadline = new Promise<void>((resolve) =>
        setTimeout(resolve, options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS).unref(),
      );
      let timedOut = false;
      void deadline.then(() => (timedOut = true));
      await Promise.race([
        (async () => {
          await sending;
          // A refused batch gets a few more tries while the time allows.
          for (let attempt = 0; attempt < CLOSE_ATTEMPTS && queue.length > 0 && !timedOut; attempt++) await flush();
        })(),
        deadline,
      ]);
      drop(queue.length);
      queue = [];
      queuedBytes = 0;
    },
  };
}

/** About what a report holds in memory: its body, and its headers (bounded by common/delivery-redaction.ts). */
function sizeOf(delivery: PendingDelivery): number {
  return (
    (delivery.body?.length ?? 0) + delivery.headers.reduce((sum, [name, value]) => sum + name.length + value.length, 0)
  );
}

function toReport(delivery: PendingDelivery, now: number): DeliveryReport {
  const { receivedAt, headers, ...fields } = delivery;
  return create(DeliveryReportSchema, {
    ...fields,
    receivedMsAgo: Math.max(0, Math.round(now - receivedAt)),
    headers: headers.map(([name, value]) => ({ name, value })),
  });
}
