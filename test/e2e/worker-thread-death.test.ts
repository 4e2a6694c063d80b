// A worker whose workflow thread dies is never silent: the stack as separate
// processes, the worker given a heap far too small for the cache it is told
// to keep (an operator's FLOWHOOK_WORKER_CACHED_WORKFLOWS and NODE_OPTIONS),
// and sleeping executions until its workflow thread runs out of memory. The
// worker says why and exits 1; the engine sees no worker poll any more and
// the facade's /readyz says so; a new worker makes it ready again.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { eventually } from '../support/eventually.ts';
import { stackTenant, startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { flow } from '../support/webhook-helpers.ts';

const COMPANY = 'Thread Death';
let stack: ProcessStack;

test.before(async () => {
  stack = await startProcessStack({
    env: { FLOWHOOK_LOG_LEVEL: 'info' },
    // Every cached execution costs the workflow thread's heap (~150 KiB for this flow): 128 MiB holds a few hundred.
    componentEnv: { worker: { NODE_OPTIONS: '--max-old-space-size=128', FLOWHOOK_WORKER_CACHED_WORKFLOWS: '100000' } },
  });
});
test.after.always(async () => stack?.stop());

interface Readiness {
  status: number;
  checks: Record<string, string>;
}

async function readyz(): Promise<Readiness> {
  const response = await fetch(`${stack.facadeUrl}/readyz`);
  return { status: response.status, checks: ((await response.json()) as { checks: Record<string, string> }).checks };
}

test('a workflow thread that dies stops its worker with the reason, and /readyz says no worker polls until another one does', async (t) => {
  t.timeout(10 * 60_000);
  const { admin, auth } = await stackTenant(stack, COMPANY, 'sleeper');
  const steps = [
    { set: { description: 'Note the call', variables: { n: '${Trigger.Payload.n}' } } },
    { sleep: { description: 'Stay cached', duration: '30m' } },
  ];
  const { secret } = await admin.applyFlow({
    flow: fromJson(FlowSchema, flow(COMPANY, 'sleepy', { activity: 'death.sleepy' }, steps) as never),
    publish: true,
  });
  await eventually(readyz, { until: (ready) => ready.status === 200, what: 'ready with a worker' });

  // Sleeping executions stay in the worker's cache: more of them than its workflow thread can hold.
  const call = (n: number) =>
    fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: `{"activity": "death.sleepy", "secret": ${JSON.stringify(secret)}, "payload": {"n": ${n}, "padding": "${'x'.repeat(4000)}"}}`,
    }).then((response) => response.text());
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < 5000 && stack.exit('worker') === undefined) await call(next++);
    }),
  );
  const exit = await eventually(() => stack.exit('worker'), {
    until: (ended) => ended !== undefined,
    timeoutMs: 120_000,
    what: 'the worker exits',
  });
  t.deepEqual(exit, { code: 1, signal: null }, 'non-zero, by itself');
  t.regex(stack.output(), /the worker failed and stops/);
  t.regex(stack.output(), /Workflow Worker Thread/);

  // No worker polls: not ready, naming it (the last poll counts for 75 s).
  const down = await eventually(readyz, {
    until: (ready) => ready.status === 503,
    timeoutMs: 150_000,
    intervalMs: 1000,
    what: '/readyz 503 without a worker',
  });
  t.is(down.checks.workers, 'not serving');
  t.is(down.checks.temporal, 'ok');

  stack.launch('worker');
  await eventually(readyz, {
    until: (ready) => ready.status === 200,
    timeoutMs: 120_000,
    what: 'ready again with a new worker',
  });
});
