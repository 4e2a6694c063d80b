// Alert channels end to end: `alert test` sends through each kind of
// connection to a local stand-in — a Slack incoming webhook, a Teams workflow
// webhook (an Adaptive Card), a Standard-Webhooks-signed webhook (verified
// with that project's own library) and an SMTP server (smtp-server) — under
// the egress policy, which a company's own list narrows; a refusal never
// shows a webhook URL (it is the secret). And calls-refused: wrong-secret
// calls recorded in the delivery log fire the rule's workflow once.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from '@connectrpc/connect';
import { fromJson } from '@bufbuild/protobuf';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { AlertCondition, AlertService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { kindSettingsOf, type KindSettings } from '../../flow/connection-kinds/connection-settings.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { createTenant, flow, type Tenant } from '../support/webhook-helpers.ts';
import { runCapturing } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';

interface Mail {
  from: string;
  to: string[];
  user: string;
  password: string;
  data: string;
}

let stack: TestStack;
let tenant: Tenant;
let sink: RouteServer;
let alerts: Client<typeof AlertService>;
let smtp: { server: SMTPServer; port: number; mails: Mail[] };

async function startSmtp(): Promise<typeof smtp> {
  const mails: Mail[] = [];
  const logins = new Map<string, { user: string; password: string }>();
  const server = new SMTPServer({
    // Clear text on loopback for the test: the connection says so (--smtp-security none).
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, session, callback) {
      if (auth.username !== 'alerts' || auth.password !== 'mail-pass') return callback(new Error('bad login'));
      logins.set(session.id, { user: auth.username!, password: auth.password! });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          ...logins.get(session.id)!,
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port, mails };
}

test.before(async () => {
  [sink, smtp] = await Promise.all([startRouteServer(), startSmtp()]);
  for (const path of ['/slack', '/teams', '/hook']) sink.route(path, (_request, response) => void response.end('ok'));
  stack = await startStack({ env: { FLOWHOOK_ALERT_EVALUATION_INTERVAL: '1s' } });
  tenant = await createTenant(stack, 'Channel Co');
  alerts = createClient(
    AlertService,
    createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
  );
});
test.after.always(async () => {
  await stack?.close();
  await sink?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.server.close(() => resolve()) : resolve()));
});

const cli = (...args: string[]) =>
  runCapturing(args, { alerts: { client: () => alerts }, admin: { client: stack.admin } });

async function channel(
  name: string,
  type: ConnectionType,
  secret: string,
  settings: Partial<KindSettings & { baseUrl: string }> = {},
) {
  await stack.admin.setConnection({
    company: tenant.company,
    name,
    settings: { type, allowedHosts: [], baseUrl: settings.baseUrl ?? '', ...kindSettingsOf(settings) },
    secret,
  });
}

async function rule(name: string, connection: string, extra: Record<string, unknown> = {}) {
  await alerts.setAlert({
    rule: {
      company: tenant.company,
      name,
      condition: AlertCondition.SYNC_TIMEOUT,
      threshold: 1000,
      connection,
      ...extra,
    },
  });
}

test.serial('Slack: alert test posts text and Block Kit to the incoming webhook', async (t) => {
  await channel('slack-ops', ConnectionType.SLACK, `${sink.url}/slack?token=slack-secret-part`);
  await rule('slack-rule', 'slack-ops');
  const sent = await cli('alert', 'test', tenant.company, 'slack-rule');
  t.is(sent.code, 0, sent.err);
  t.regex(
    sent.out,
    /Sent a test message for alert "slack-rule" in company "Channel Co": Test: slack-rule \(Channel Co\)/,
  );
  const posted = sink.seen.find((seen) => seen.path.startsWith('/slack'))!;
  t.is(posted.headers['content-type'], 'application/json');
  const body = JSON.parse(posted.body) as { text: string; blocks: { type: string }[] };
  t.is(body.text, 'Test: slack-rule (Channel Co)');
  t.deepEqual(
    body.blocks.map((block) => block.type),
    ['header', 'section'],
  );
});

test.serial('Teams: alert test posts a message whose attachment is an Adaptive Card', async (t) => {
  await channel('teams-ops', ConnectionType.TEAMS, `${sink.url}/teams?sig=teams-secret-part`);
  await rule('teams-rule', 'teams-ops');
  t.is((await cli('alert', 'test', tenant.company, 'teams-rule')).code, 0);
  const posted = JSON.parse(sink.seen.find((seen) => seen.path.startsWith('/teams'))!.body) as {
    type: string;
    attachments: { contentType: string; content: { type: string; body: { text: string }[] } }[];
  };
  t.is(posted.type, 'message');
  t.is(posted.attachments[0]!.contentType, 'application/vnd.microsoft.card.adaptive');
  t.is(posted.attachments[0]!.content.type, 'AdaptiveCard');
  t.is(posted.attachments[0]!.content.body[0]!.text, 'Test: teams-rule (Channel Co)');
});

test.serial('webhook: the Standard Webhooks library verifies the signed test message', async (t) => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await channel('hook-ops', ConnectionType.WEBHOOK, secret, { baseUrl: `${sink.url}/hook` });
  await rule('hook-rule', 'hook-ops');
  t.is((await cli('alert', 'test', tenant.company, 'hook-rule')).code, 0);
  const posted = sink.seen.find((seen) => seen.path === '/hook')!;
  const payload = new Webhook(secret).verify(posted.body, posted.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
  t.is(payload.type, 'alert.test');
  t.like(payload.data, { company: 'Channel Co', alert: 'hook-rule', condition: 'sync-timeout', state: 'test' });
});

test.serial('smtp: alert test sends one e-mail through the SMTP server with the stored password', async (t) => {
  await channel('mail-ops', ConnectionType.SMTP, 'mail-pass', {
    smtpHost: '127.0.0.1',
    smtpPort: String(smtp.port),
    smtpSecurity: 'none',
    mailFrom: 'flowhook@example.test',
    mailTo: 'ops@example.test, oncall@example.test',
    username: 'alerts',
  });
  await rule('mail-rule', 'mail-ops');
  const sent = await cli('alert', 'test', tenant.company, 'mail-rule');
  t.is(sent.code, 0, sent.err);
  t.is(smtp.mails.length, 1);
  const [mail] = smtp.mails;
  t.like(mail, { from: 'flowhook@example.test', user: 'alerts', password: 'mail-pass' });
  t.deepEqual(mail!.to, ['ops@example.test', 'oncall@example.test']);
  t.regex(mail!.data, /^Subject: \[flowhook\] Test: mail-rule \(Channel Co\)$/m);
  // The header may be folded onto the next line.
  t.regex(mail!.data, /^Message-ID:\s+<test_[^@]+@flowhook>\r?$/m);

  // Secure by default: without --smtp-security the server must offer STARTTLS, and this one does not.
  await channel('mail-default', ConnectionType.SMTP, 'mail-pass', {
    smtpHost: '127.0.0.1',
    smtpPort: String(smtp.port),
    mailFrom: 'flowhook@example.test',
    mailTo: 'ops@example.test',
    username: 'alerts',
  });
  await rule('mail-default-rule', 'mail-default');
  const refused = await cli('alert', 'test', tenant.company, 'mail-default-rule');
  t.is(refused.code, 1);
  t.regex(refused.err, /STARTTLS is not offered \(the connection's --smtp-security is starttls\)/);
  t.is(smtp.mails.length, 1);
});

test.serial(
  "a company's egress list narrows where alerts go, and the refusal never shows the webhook URL",
  async (t) => {
    await stack.admin.setCompanyEgress({ company: tenant.company, allow: ['hooks.example.com'] });
    try {
      const refused = await cli('alert', 'test', tenant.company, 'slack-rule');
      t.is(refused.code, 1);
      t.regex(refused.err, /refused by company "Channel Co" egress list/);
      t.false(refused.err.includes('slack-secret-part'));
      t.false(refused.err.includes('/slack'));
    } finally {
      await stack.admin.setCompanyEgress({ company: tenant.company, clear: true });
    }
  },
);

test.serial('a rule refuses what it cannot mean, naming the option to fix', async (t) => {
  await stack.admin.setConnection({
    company: tenant.company,
    name: 'erp',
    settings: {
      type: ConnectionType.BEARER,
      baseUrl: 'https://erp.example.com',
      allowedHosts: [],
      ...kindSettingsOf({}),
    },
    secret: 'token',
  });
  const refusal = async (...args: string[]) => {
    const run = await cli('alert', 'set', tenant.company, 'bad', ...args);
    t.is(run.code, 1, run.out);
    return run.err;
  };
  t.regex(
    await refusal('--when', 'execution-failed', '--connection', 'erp'),
    /--connection: "erp" is a bearer connection, which carries requests, not alerts/,
  );
  t.regex(
    await refusal('--when', 'sync-timeout', '--flow', 'x', '--connection', 'slack-ops'),
    /--flow: only execution-failed and backlog rules watch one flow/,
  );
  t.regex(
    await refusal('--when', 'calls-refused', '--reason', 'nope', '--connection', 'slack-ops'),
    /--reason: "nope" is no refusal reason/,
  );
  t.regex(
    await refusal('--when', 'execution-failed', '--window', '1s', '--connection', 'slack-ops'),
    /--window: from 10s to 7d/,
  );
  t.regex(await refusal('--when', 'execution-failed', '--connection', 'nowhere'), /has no connection "nowhere"/);
});

test.serial('calls-refused: wrong-secret calls fire the rule once, with the refused count', async (t) => {
  const definition = flow(tenant.company, 'refusing', { activity: 'refusing.hook' }, [
    { log: { description: 'ran', message: 'ran' } },
  ]);
  await stack.admin.applyFlow({ flow: fromJson(FlowSchema, definition as never), publish: true });
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  await channel('refusal-hook', ConnectionType.WEBHOOK, secret, { baseUrl: `${sink.url}/hook` });
  const set = await cli(
    'alert',
    'set',
    tenant.company,
    'wrong-secrets',
    '--when',
    'calls-refused',
    '--reason',
    'secret_mismatch',
    '--threshold',
    '3',
    '--window',
    '5m',
    '--connection',
    'refusal-hook',
  );
  t.is(set.code, 0, set.err);
  for (let call = 0; call < 3; call++) {
    const response = await fetch(
      `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(tenant.company)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: tenant.auth },
        body: JSON.stringify({ activity: 'refusing.hook', secret: 'wrong', payload: {} }),
      },
    );
    t.is(response.status, 401);
  }
  const fired = () =>
    sink.seen.filter((seen) => seen.path === '/hook' && seen.body.includes('"alert":"wrong-secrets"'));
  await eventually(() => fired().length >= 1, { timeoutMs: 60_000, what: 'the calls-refused firing message' });
  const payload = new Webhook(secret).verify(fired()[0]!.body, fired()[0]!.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
  t.is(payload.type, 'alert.firing');
  t.like(payload.data, { condition: 'calls-refused', reason: 'secret_mismatch', count: 3, incident: 1 });
  t.regex(String(payload.data.title), /^Firing: 3 refused calls \(secret_mismatch\) to Channel Co in 5m$/);
  t.is(fired().length, 1);
});

test.serial(
  'sync-timeout and backlog: each fires once on what it counts; backlog resolves when the wait ends',
  async (t) => {
    sink.route(
      '/slow',
      (_request, response) => void setTimeout(() => response.writeHead(200).end('{"late":true}'), 2500),
    );
    const slow = flow(
      tenant.company,
      'slow-answer',
      { activity: 'slow.answer', responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 1 },
      [
        { httpRequest: { description: 'Slow partner', method: 'GET', url: `${sink.url}/slow` } },
        { respond: { statusCode: 200, body: 'late' } },
      ],
    );
    const waiting = flow(tenant.company, 'long-wait', { activity: 'long.wait' }, [
      { sleep: { description: 'Wait for the partner', duration: '10m' } },
    ]);
    const slowSecret = (await stack.admin.applyFlow({ flow: fromJson(FlowSchema, slow as never), publish: true }))
      .secret;
    const waitSecret = (await stack.admin.applyFlow({ flow: fromJson(FlowSchema, waiting as never), publish: true }))
      .secret;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await channel('count-hook', ConnectionType.WEBHOOK, secret, { baseUrl: `${sink.url}/counted` });
    sink.route('/counted', (_request, response) => void response.writeHead(204).end());
    const set = async (...args: string[]) => {
      const run = await cli('alert', 'set', tenant.company, ...args, '--connection', 'count-hook');
      t.is(run.code, 0, run.err);
    };
    await set('timeouts', '--when', 'sync-timeout', '--threshold', '1', '--window', '5m');
    await set('waits', '--when', 'backlog', '--flow', 'long-wait', '--threshold', '1', '--window', '10s');
    const call = (activity: string, flowSecret: string) =>
      fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(tenant.company)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: tenant.auth },
        body: JSON.stringify({ activity, secret: flowSecret, payload: {} }),
      });
    const timedOut = await call('slow.answer', slowSecret);
    t.is(timedOut.headers.get('x-flowhook-outcome'), 'sync-timeout');
    const started = await call('long.wait', waitSecret);
    t.is(started.status, 200);
    const executionId = started.headers.get('x-flowhook-execution-id')!;

    const counted = () =>
      sink.seen
        .filter((seen) => seen.path === '/counted')
        .map((seen) => new Webhook(secret).verify(seen.body, seen.headers as Record<string, string>))
        .map((payload) => payload as { type: string; data: { alert: string; count: number; title: string } });
    const said = (alert: string, type: string) =>
      counted().filter((payload) => payload.data.alert === alert && payload.type === type);
    await eventually(() => said('timeouts', 'alert.firing').length === 1, {
      timeoutMs: 60_000,
      what: 'timeouts firing',
    });
    t.regex(
      said('timeouts', 'alert.firing')[0]!.data.title,
      /^Firing: 1 sync call to Channel Co answered by the sync timeout in 5m$/,
    );
    // Running for longer than its 10 s window: the backlog rule fires.
    await eventually(() => said('waits', 'alert.firing').length === 1, { timeoutMs: 60_000, what: 'waits firing' });
    t.regex(
      said('waits', 'alert.firing')[0]!.data.title,
      /^Firing: 1 execution of long-wait still waiting or running after 10s$/,
    );
    await stack.temporal.workflow.getHandle(executionId).terminate('the test ends the wait');
    await eventually(() => said('waits', 'alert.resolved').length === 1, { timeoutMs: 60_000, what: 'waits resolved' });
    t.is(said('timeouts', 'alert.firing').length, 1);
    t.is(said('waits', 'alert.firing').length, 1);
  },
);
