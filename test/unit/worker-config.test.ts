import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { cachedWorkflowsForHeap, readWorkerConfig } from '../../workflows/config.ts';

// The worker does not start without its service account token; every test gives it one.
const TOKEN = 'a-token-of-sixteen-plus';

test('workflow stack traces are off unless asked for, and the switch is checked', (t) => {
  t.false(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN }).workflowStackTraces);
  t.true(
    readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKFLOW_STACK_TRACES: 'true' }).workflowStackTraces,
  );
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKFLOW_STACK_TRACES: 'yes' }), {
    message: /FLOWHOOK_WORKFLOW_STACK_TRACES must be true or false/,
  });
});

test("the metrics ports are flowhook's own: a flow on the same host would be a loopback scraper", (t) => {
  const defaults = readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN }).egress.ownPorts;
  t.deepEqual(
    [7051, 7052, 7053].map((port) => defaults.get(port)),
    ['engine metrics', 'worker metrics', 'facade metrics'],
  );
  const moved = readWorkerConfig({
    FLOWHOOK_ENGINE_TOKEN: TOKEN,
    FLOWHOOK_ENGINE_METRICS_PORT: '9101',
    FLOWHOOK_WORKER_METRICS_PORT: '9102',
    FLOWHOOK_FACADE_METRICS_PORT: '9103',
  }).egress.ownPorts;
  t.deepEqual(
    [9101, 9102, 9103].map((port) => moved.get(port)),
    ['engine metrics', 'worker metrics', 'facade metrics'],
  );
});

test('worker slots must be positive integers', (t) => {
  t.is(
    readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY: '7' })
      .maxConcurrentWorkflowTasks,
    7,
  );
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY: '0' }), {
    message: /FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY must be an integer >= 1/,
  });
});

test("the workflow cache is bounded by the workflow thread's heap unless an operator sets it", (t) => {
  const MiB = 1024 * 1024;
  // bin/flowhook's heap limits: old space 256 MiB (worker) and 384 MiB (start), semi-space 8 MiB.
  t.is(cachedWorkflowsForHeap(280 * MiB), 497);
  t.is(cachedWorkflowsForHeap(408 * MiB), 725);
  t.is(cachedWorkflowsForHeap(4096 * MiB), 1000, 'never more than 1000');
  t.is(cachedWorkflowsForHeap(8 * MiB), 20, 'never fewer than 20');
  t.is(
    readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKER_CACHED_WORKFLOWS: '50' }).maxCachedWorkflows,
    50,
  );
  t.true(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN }).maxCachedWorkflows >= 20);
});

test('the worker needs its own service account token, from env or an owner-only file', (t) => {
  t.throws(() => readWorkerConfig({}), {
    message: /the worker needs its service account token in FLOWHOOK_ENGINE_TOKEN.*--scope records/,
  });
  t.throws(() => readWorkerConfig({ FLOWHOOK_SERVICE_TOKEN: TOKEN }), {
    message: /FLOWHOOK_SERVICE_TOKEN is no longer read/,
  });
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-worker-token-'));
  const file = join(dir, 'token');
  writeFileSync(file, `${TOKEN}\n`, { mode: 0o644 });
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN_FILE: file }), {
    message: /readable by others \(mode 644\); chmod 600/,
  });
  chmodSync(file, 0o600);
  t.is(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN_FILE: file }).engineToken, TOKEN);
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN_FILE: file, FLOWHOOK_ENGINE_TOKEN: TOKEN }), {
    message: /not both/,
  });
  rmSync(dir, { recursive: true });
});
