// An alert rule end to end, on the stack as separate processes: three failed
// executions of a flow within the rule's window reach a local webhook sink as
// exactly one "firing" message, signed the Standard Webhooks way, and the
// quiet after them as exactly one "resolved" — across a kill -9 of the engine
// between the failures, and another between firing and resolution. The
// rule's state lives in its Temporal workflow, and the engine remembers the
// last notification it sent, so neither crash repeats nor loses one.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createClient } from '@connectrpc/connect';
import { Webhook } from 'standardwebhooks';
import { fromJson } from '@bufbuild/protobuf';
import { AlertService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { kindSettingsOf } from '../../flow/connection-kinds/connection-settings.ts';
import { startProcessStack, stackTenant, type ProcessStack } from '../support/process-stack.ts';
import { startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { runCapturing } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { flow } from '../support/webhook-helpers.ts';
import { canConnect } from '../../bin/embedded/free-port.ts';

const COMPANY = 'Alerting Co';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

let stack: ProcessStack;
let sink: RouteServer;

test.before(async () => {
  sink = await startRouteServer();
  sink.route('/alerts', (_request, response) => void response.writeHead(204).end());
  stack = await startProcessStack({ env: { FLOWHOOK_ALERT_EVALUATION_INTERVAL: '1s' } });
});
test.after.always(async () => {
  await stack?.stop();
  await sink?.close();
});

/** Kill -9 of the engine, and a new one serving again. */
async function crashEngine(): Promise<void> {
  await stack.crash('engine');
  stack.launch('engine');
  const port = Number(new URL(stack.engineUrl).port);
  await eventually(() => canConnect('127.0.0.1', port), { timeoutMs: 60_000, what: 'the engine listening again' });
}

test('three failures in the window: one "firing" and later one "resolved", across two kill -9 of the engine', async (t) => {
  const { admin, auth } = await stackTenant(stack, COMPANY, 'alert-user');
  const definition = flow(COMPANY, 'partner-sync', { activity: 'partner.sync' }, [
    { fail: { description: 'Partner is down', message: 'partner down' } },
  ]);
  const { secret } = await admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
  await admin.setConnection({
    company: COMPANY,
    name: 'ops-hook',
    settings: { type: ConnectionType.WEBHOOK, baseUrl: `${sink.url}/alerts`, allowedHosts: [], ...kindSettingsOf({}) },
    secret: SECRET,
  });
  const alerts = createClient(
    AlertService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN! }),
  );
  const cli = (...args: string[]) => runCapturing(args, { alerts: { client: () => alerts } });
  const set = await cli(
    'alert',
    'set',
    COMPANY,
    'partner-failures',
    '--when',
    'execution-failed',
    '--flow',
    'partner-sync',
    '--threshold',
    '3',
    '--window',
    '45s',
    '--connection',
    'ops-hook',
  );
  t.is(set.code, 0, set.err);
  t.regex(
    set.out,
    /Created alert "partner-failures" in company "Alerting Co": execution-failed of partner-sync, 3 in 45s/,
  );

  const fail = async () => {
    const response = await fetch(
      `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ activity: 'partner.sync', secret, payload: {} }),
      },
    );
    t.is(response.status, 200, await response.text());
  };
  await fail();
  await crashEngine();
  await fail();
  await fail();

  const messages = () => sink.seen.filter((seen) => seen.path === '/alerts');
  await eventually(() => messages().length >= 1, { timeoutMs: 60_000, what: 'the firing message' });
  const firing = messages()[0]!;
  // Verified with the Standard Webhooks library, not with flowhook's own signing.
  const payload = new Webhook(SECRET).verify(firing.body, firing.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
  t.is(payload.type, 'alert.firing');
  t.like(payload.data, {
    company: COMPANY,
    alert: 'partner-failures',
    condition: 'execution-failed',
    flow: 'partner-sync',
    state: 'firing',
    incident: 1,
    count: 3,
    threshold: 3,
  });
  t.regex(String(payload.data.title), /^Firing: 3 failed executions of partner-sync in 45s$/);

  // The engine records what it sent once the channel took it.
  const shown = await eventually(() => cli('alert', 'show', COMPANY, 'partner-failures'), {
    until: (run) => /state\s+FIRING/.test(run.out),
    what: 'alert show saying FIRING',
  });
  t.regex(shown.out, /incidents\s+1\n\s+last notified\s+\S+ \(count 3\)/);

  await crashEngine();
  await eventually(() => messages().length >= 2, { timeoutMs: 120_000, what: 'the resolved message' });
  const resolved = messages()[1]!;
  const resolvedPayload = new Webhook(SECRET).verify(resolved.body, resolved.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
  t.is(resolvedPayload.type, 'alert.resolved');
  // Resolved as soon as the window holds fewer than the threshold (the oldest failure left it).
  t.like(resolvedPayload.data, { state: 'resolved', incident: 1 });
  t.true((resolvedPayload.data.count as number) < 3, String(resolvedPayload.data.count));
  t.not(resolved.headers['webhook-id'], firing.headers['webhook-id']);

  // Quiet from now on: several more evaluations say nothing new.
  const rounds = Date.now();
  await eventually(() => Date.now() - rounds > 5000, { timeoutMs: 10_000, intervalMs: 500 });
  t.is(
    messages().length,
    2,
    messages()
      .map((m) => m.body)
      .join('\n'),
  );
  const listed = await cli('alert', 'list', COMPANY, '--json');
  const [entry] = (JSON.parse(listed.out) as { alerts: { state: string; incidents: number }[] }).alerts;
  t.like(entry, { state: 'ALERT_STATE_OK', incidents: 1 });
});
