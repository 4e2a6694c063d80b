// The facade's delivery reports on their way to the engine (facade/delivery-reporter.ts):
// bounded memory (dropped and counted beyond the capacity, never blocking a
// request), batches of bounded size, a batch the engine refused tried again,
// and what waits sent on close.
import test from 'ava';
import pino from 'pino';
import type { DeliveryReport } from '../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import {
  createDeliveryReporter,
  type DeliveryLogClient,
  type PendingDelivery,
} from '../../facade/delivery-reporter.ts';

const logger = pino({ level: 'silent' });
const report = (requestId: string): PendingDelivery => ({
  receivedAt: performance.now(),
  route: 'endpoint',
  outcome: 'refused',
  reason: 'missing_credentials',
  status: 401,
  requestId,
  headers: [['authorization', '[redacted]']],
});

function engine(failFirst = 0) {
  const batches: DeliveryReport[][] = [];
  let failures = failFirst;
  return {
    batches,
    // Only the one method the reporter calls; the batches are the messages it built.
    client: {
      recordDeliveries: async (request: { deliveries: DeliveryReport[] }) => {
        if (failures-- > 0) throw new Error('engine unavailable');
        batches.push(request.deliveries);
        return { stored: request.deliveries.length, counted: 0 };
      },
    } as unknown as DeliveryLogClient,
  };
}

test('beyond the capacity reports are dropped and counted; close sends the rest in bounded batches', async (t) => {
  const { client, batches } = engine();
  let dropped = 0;
  // A long interval: nothing leaves before close unless a batch fills.
  const reporter = createDeliveryReporter({
    client,
    logger,
    capacity: 250,
    batchSize: 100,
    intervalMs: 3_600_000,
    dropped: () => dropped++,
  });
  for (let i = 0; i < 300; i++) reporter.report(report(`r${i}`));
  await reporter.close();
  const sent = batches.flat();
  t.true(batches.every((batch) => batch.length <= 100));
  t.is(sent.length + dropped, 300, 'every report sent or counted as dropped');
  t.true(sent.length >= 250);
  t.is(sent[0]!.requestId, 'r0');
  t.deepEqual(
    sent[0]!.headers.map((h) => [h.name, h.value]),
    [['authorization', '[redacted]']],
  );
  t.true(sent[0]!.receivedMsAgo >= 0);
  reporter.report(report('late'));
  t.is(dropped, 300 - sent.length + 1, 'a report after close is dropped, counted');
});

test('the bytes waiting are bounded too: a large body beyond them is dropped, counted', async (t) => {
  const { client, batches } = engine();
  let dropped = 0;
  const reporter = createDeliveryReporter({
    client,
    logger,
    capacity: 100,
    maxBytes: 1000,
    batchSize: 10,
    intervalMs: 3_600_000,
    dropped: () => dropped++,
  });
  reporter.report({ ...report('small'), body: new Uint8Array(100) });
  reporter.report({ ...report('large'), body: new Uint8Array(5000) });
  await reporter.close();
  t.deepEqual(
    batches.flat().map((r) => r.requestId),
    ['small'],
  );
  t.is(dropped, 1);
});

test('a batch the engine refused is kept and sent again', async (t) => {
  const { client, batches } = engine(1);
  const reporter = createDeliveryReporter({ client, logger, capacity: 100, batchSize: 10, intervalMs: 3_600_000 });
  for (let i = 0; i < 5; i++) reporter.report(report(`r${i}`));
  await reporter.close();
  t.deepEqual(
    batches.flat().map((r) => r.requestId),
    ['r0', 'r1', 'r2', 'r3', 'r4'],
  );
});
