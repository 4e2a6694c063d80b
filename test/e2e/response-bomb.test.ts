// Bounded answers: a gzip bomb (≈1 MiB on the wire, 1 GiB inflated) and an
// endless stream are cut off at the response cap, counted after
// decompression, by a worker running as its own process — whose resident
// memory is sampled while it happens and must stay about flat.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient, type AdminClient } from '../../bin/cli/admin-client.ts';
import { endlessStream, gzipBomb, startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { startProcessStack, type ProcessStack } from '../support/process-stack.ts';
import { testInfrastructure } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';

const MiB = 1024 * 1024;
/** Far below what buffering the answer would take (1 GiB), far above the 4 MiB cap plus noise. */
const MAX_RSS_GROWTH = 96 * MiB;

let stack: ProcessStack;
let admin: AdminClient;
let hostile: RouteServer;
let temporalConnection: Connection;
let accessKey = '';

test.before(async () => {
  hostile = await startRouteServer();
  hostile.route('/bomb', gzipBomb(1024));
  hostile.route('/endless', endlessStream);
  stack = await startProcessStack({ env: { FLOWHOOK_LOG_LEVEL: 'warn' } });
  admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN! });
  await admin.createCompany({ name: 'Bombed' });
  accessKey = (await admin.createUser({ name: 'bomb-user', company: 'Bombed' })).accessKey;
  temporalConnection = await Connection.connect({ address: testInfrastructure().temporalAddress });
  // The worker's first executions create its workflow runtime (a few hundred MiB): warm it up
  // with ordinary calls first, so the samples below measure the answers, not the runtime.
  hostile.route(
    '/small',
    (_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
  );
  const warm = flow('Bombed', 'warm-up', { activity: 'bomb.warm', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
    { name: 'small', httpRequest: { url: `${hostile.url}/small` } },
    { respond: { statusCode: 200, body: '${ $string(Steps.small.json) }' } },
  ]);
  const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, warm as never), publish: true });
  for (let i = 0; i < 20; i++) {
    const response = await invoke('bomb.warm', secret);
    if (response.status !== 200) throw new Error(`warm-up call answered ${response.status}`);
  }
});

function invoke(activity: string, secret: string): Promise<Response> {
  return fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=Bombed`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`bomb-user:${accessKey}`).toString('base64')}`,
    },
    body: JSON.stringify({ activity, secret, payload: {} }),
  });
}
test.after.always(async () => {
  await stack?.stop();
  await temporalConnection?.close();
  await hostile?.close();
});

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

/** Calls a flow whose one step fetches `path`, sampling the worker's RSS until the execution has failed. */
async function fetchHostile(t: import('ava').ExecutionContext, path: string) {
  const activity = `bomb${path.replace(/\W/g, '.')}`;
  const definition = flow('Bombed', `bomb-${path.slice(1)}`, { activity }, [
    { httpRequest: { description: 'Fetch the answer', url: `${hostile.url}${path}`, timeout: '60s' } },
  ]);
  const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
  const worker = stack.pid('worker');
  const baseline = rssOf(worker);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(worker))), 10);
  try {
    const response = await invoke(activity, secret);
    t.is(response.status, 200);
    const executionId = response.headers.get('x-flowhook-execution-id')!;
    const error = await t.throwsAsync(
      new Client({ connection: temporalConnection }).workflow.getHandle(executionId).result(),
    );
    t.regex(String((error as { cause?: Error }).cause?.message), /response body is larger than 4194304 bytes/);
  } finally {
    clearInterval(sampler);
  }
  t.log(
    `worker RSS ${Math.round(baseline / MiB)} MiB before, peak ${Math.round(peak / MiB)} MiB (+${Math.round((peak - baseline) / MiB)} MiB)`,
  );
  t.true(peak - baseline < MAX_RSS_GROWTH, `worker RSS grew by ${Math.round((peak - baseline) / MiB)} MiB`);
}

test.serial("a gzip bomb is cut off at the cap after decompression, and the worker's memory stays flat", async (t) => {
  await fetchHostile(t, '/bomb');
});

test.serial("an endless stream is cut off at the cap, and the worker's memory stays flat", async (t) => {
  await fetchHostile(t, '/endless');
});
