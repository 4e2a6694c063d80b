import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readWorkerConfig } from '../../workflows/config.ts';

// The worker does not start without its service account token; every test gives it one.
const TOKEN = 'a-token-of-sixteen-plus';

test('workflow stack traces are off unless asked for, and the switch is checked', (t) => {
  t.false(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN }).workflowStackTraces);
  t.true(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKFLOW_STACK_TRACES: 'true' }).workflowStackTraces);
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKFLOW_STACK_TRACES: 'yes' }), { message: /FLOWHOOK_WORKFLOW_STACK_TRACES must be true or false/ });
});

test('worker slots must be positive integers', (t) => {
  t.is(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY: '7' }).maxConcurrentWorkflowTasks, 7);
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN: TOKEN, FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY: '0' }), { message: /FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY must be a positive integer/ });
});

test('the worker needs its own service account token, from env or an owner-only file', (t) => {
  t.throws(() => readWorkerConfig({}), { message: /the worker needs its service account token in FLOWHOOK_ENGINE_TOKEN.*--scope records/ });
  t.throws(() => readWorkerConfig({ FLOWHOOK_SERVICE_TOKEN: TOKEN }), { message: /FLOWHOOK_SERVICE_TOKEN is no longer read/ });
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-worker-token-'));
  const file = join(dir, 'token');
  writeFileSync(file, `${TOKEN}\n`, { mode: 0o644 });
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN_FILE: file }), { message: /readable by others \(mode 644\); chmod 600/ });
  chmodSync(file, 0o600);
  t.is(readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN_FILE: file }).engineToken, TOKEN);
  t.throws(() => readWorkerConfig({ FLOWHOOK_ENGINE_TOKEN_FILE: file, FLOWHOOK_ENGINE_TOKEN: TOKEN }), { message: /not both/ });
  rmSync(dir, { recursive: true });
});
