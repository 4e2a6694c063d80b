// Published flows are cached in each engine; a change made through another
// engine on the same database (PostgreSQL LISTEN/NOTIFY) must reach it.
import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

let stack: TestStack;
let tenant: Tenant;
let otherEngine: RunningEngine;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  otherEngine = await runEngine(readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0' }));
});
test.after.always(async () => {
  await otherEngine?.close();
  await stack?.close();
});

async function eventually(probe: () => Promise<number>, expected: number): Promise<number> {
  let status = await probe();
  for (const deadline = Date.now() + 5000; status !== expected && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await probe();
  }
  return status;
}

test('a secret rotated or a flow unpublished through another engine stops working here', async (t) => {
  const { secret } = await deployFlow(stack, flow(tenant.company, 'cached', { activity: 'cached.flow' }, []));
  const call = (s: string) => callWebhook(stack, { company: tenant.company, activity: 'cached.flow', secret: s, auth: tenant.auth }).then((a) => a.status);
  t.is(await call(secret), 200);
  t.is(await call(secret), 200, 'served from the warm cache');

  const other = createAdminClient({ engineUrl: `http://127.0.0.1:${otherEngine.port}`, adminToken: stack.adminToken });
  const { secret: rotated } = await other.rotateSecret({ company: tenant.company, activity: 'cached.flow' });
  t.is(await eventually(() => call(secret), 401), 401);
  t.is(await call(rotated), 200);

  await other.unpublishFlow({ company: tenant.company, name: 'cached' });
  t.is(await eventually(() => call(rotated), 404), 404);
});
