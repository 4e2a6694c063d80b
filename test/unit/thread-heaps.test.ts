import test from 'ava';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { Registry } from 'prom-client';
import { registerThreadHeapMetrics, threadHeaps } from '../../common/metrics/thread-heaps.ts';

// A thread that holds ~40 MB of live objects until told to stop.
const HOLDER = `
const { parentPort } = require('node:worker_threads');
const held = Array.from({ length: 400 }, (_, i) => new Array(12500).fill(i));
parentPort.postMessage('ready');
parentPort.once('message', () => { held.length = 0; process.exit(0); });
`;

test.serial("a worker thread's heap is counted while it lives and forgotten when it exits", async (t) => {
  const before = await threadHeaps();
  const thread = new Worker(HOLDER, { eval: true });
  await once(thread, 'message');
  const during = await threadHeaps();
  t.is(during.threads, before.threads + 1, `threads before ${before.threads}, during ${during.threads}`);
  t.true(
    during.usedBytes - before.usedBytes > 30 * 1024 * 1024,
    `used grew by ${during.usedBytes - before.usedBytes} bytes`,
  );
  t.true(during.totalBytes >= during.usedBytes);

  const registry = new Registry();
  registerThreadHeapMetrics(registry);
  const text = await registry.metrics();
  t.regex(text, new RegExp(`^flowhook_threads ${during.threads}$`, 'm'));
  const used = Number(/^flowhook_threads_heap_used_bytes (\d+)$/m.exec(text)?.[1]);
  t.true(used > 30 * 1024 * 1024, `flowhook_threads_heap_used_bytes ${used}`);

  thread.postMessage('stop');
  await once(thread, 'exit');
  const after = await threadHeaps();
  t.is(after.threads, before.threads, `threads before ${before.threads}, after ${after.threads}`);
  t.is(
    (await registry.getSingleMetricAsString('flowhook_threads')).split('\n').pop(),
    `flowhook_threads ${before.threads}`,
  );
});
