// The admin commands as an operator sees them: the real commander program and
// Connect client, against an in-memory FlowAdminService (no engine, no
// database), with stdout, stderr and the exit code captured.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { create, equals } from '@bufbuild/protobuf';
import { timestampDate, timestampNow } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createRouterTransport, type ServiceImpl } from '@connectrpc/connect';
import {
  FlowAdminService,
  FlowSummarySchema,
  type CreateUserRequest,
  type FlowSummary,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { FlowSchema, type Flow } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { adminClientOn } from '../../bin/cli/admin-client.ts';
import { runCapturing } from '../support/cli-runner.ts';

interface StoredFlow {
  company: string;
  name: string;
  versions: Flow[];
  published: number;
  secret: string;
  paused?: boolean;
}

/** Just enough of the engine's behaviour to drive the CLI. */
function fakeEngine() {
  const companies = new Map<string, Date>();
  const flows = new Map<string, StoredFlow>();
  const calls: string[] = [];
  const users: CreateUserRequest[] = [];
  const newSecret = () => randomBytes(24).toString('base64url').slice(0, 32);
  const requireCompany = (name: string) => {
    if (!companies.has(name)) throw new ConnectError(`company "${name}" does not exist`, Code.NotFound);
  };
  const requireFlow = (company: string, name: string) => {
    requireCompany(company);
    const flow = flows.get(`${company}/${name}`);
    if (!flow) throw new ConnectError(`flow "${name}" does not exist in company "${company}"`, Code.NotFound);
    return flow;
  };
  const activityOf = (flow: StoredFlow) => (flow.versions.at(-1)?.trigger?.kind.value?.activity ?? '').toLowerCase();
  const summary = (flow: StoredFlow): FlowSummary =>
    create(FlowSummarySchema, {
      company: flow.company,
      name: flow.name,
      description: flow.versions.at(-1)?.description ?? '',
      activity: activityOf(flow),
      latestVersion: flow.versions.length,
      publishedVersion: flow.published,
      hasSecret: true,
      updatedAt: timestampNow(),
      ...(flow.paused && { pausedAt: timestampNow() }),
    });
  const warningsOf = (flow: StoredFlow) =>
    flow.versions.at(-1)?.steps[0]?.kind.case === 'sleep'
      ? ['steps[0].sleep: a deferral can run before any respond step']
      : [];

  const impl: ServiceImpl<typeof FlowAdminService> = {
    createCompany({ name }) {
      calls.push('createCompany');
      if (companies.has(name)) throw new ConnectError(`company "${name}" already exists`, Code.AlreadyExists);
      companies.set(name, new Date('2025-01-02T03:04:05Z'));
      return { company: { name } };
    },
    listCompanies() {
      calls.push('listCompanies');
      return { companies: [...companies.keys()].map((name) => ({ name })) };
    },
    applyFlow({ flow, publish }) {
      calls.push('applyFlow');
      if (!flow) throw new ConnectError('flow is required', Code.InvalidArgument);
      requireCompany(flow.company);
      const key = `${flow.company}/${flow.name}`;
      let stored = flows.get(key);
      const created = !stored;
      let secret = '';
      if (!stored) {
        secret = newSecret();
        stored = { company: flow.company, name: flow.name, versions: [], published: 0, secret };
        flows.set(key, stored);
      }
      const latest = stored.versions.at(-1);
      const newVersion = !latest || !equals(FlowSchema, latest, flow);
      if (newVersion) stored.versions.push(flow);
      if (publish) stored.published = stored.versions.length;
      return { flow: summary(stored), created, secret, newVersion, warnings: publish ? warningsOf(stored) : [] };
    },
    getFlow({ company, name }) {
      calls.push('getFlow');
      const flow = requireFlow(company, name);
      const webhookCall = flow.published
        ? {
            method: 'POST',
            url: `http://localhost:7048/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(company)}`,
            sampleBody: JSON.stringify({ activity: activityOf(flow), secret: '<secret>', payload: {} }),
          }
        : undefined;
      return { flow: summary(flow), definition: flow.versions.at(-1), webhookCall };
    },
    listFlows({ company }) {
      calls.push('listFlows');
      return { flows: [...flows.values()].filter((flow) => !company || flow.company === company).map(summary) };
    },
    publishFlow({ company, name, version }) {
      calls.push('publishFlow');
      const flow = requireFlow(company, name);
      flow.published = version || flow.versions.length;
      return { flow: summary(flow), warnings: warningsOf(flow) };
    },
    unpublishFlow({ company, name }) {
      calls.push('unpublishFlow');
      const flow = requireFlow(company, name);
      flow.published = 0;
      return { flow: summary(flow) };
    },
    pauseFlow({ company, name }) {
      calls.push('pauseFlow');
      const flow = requireFlow(company, name);
      const changed = !flow.paused;
      flow.paused = true;
      return { flow: summary(flow), changed };
    },
    resumeFlow({ company, name }) {
      calls.push('resumeFlow');
      const flow = requireFlow(company, name);
      const changed = flow.paused === true;
      flow.paused = false;
      return { flow: summary(flow), changed };
    },
    rotateSecret({ company, activity }) {
      calls.push('rotateSecret');
      requireCompany(company);
      const flow = [...flows.values()].find((f) => f.company === company && activityOf(f) === activity.toLowerCase());
      if (!flow) throw new ConnectError(`no flow with activity "${activity}" in company "${company}"`, Code.NotFound);
      flow.secret = newSecret();
      return { flow: summary(flow), secret: flow.secret };
    },
    createUser(request) {
      calls.push('createUser');
      users.push(request);
      return { name: request.name, accessKey: `key-${randomBytes(16).toString('hex')}` };
    },
    // The console's RPCs: no command calls them.
    checkFlow() {
      throw new ConnectError('not used by the CLI', Code.Unimplemented);
    },
    listFlowVersions() {
      throw new ConnectError('not used by the CLI', Code.Unimplemented);
    },
    tryFlow() {
      throw new ConnectError('not used by the CLI', Code.Unimplemented);
    },
  };
  const transport = createRouterTransport(({ service }) => service(FlowAdminService, impl));
  // The application and user services are driven by cli-access-commands.test.ts,
  // the connection and secret-store services by cli-connection-commands.test.ts.
  // The services this fake does not serve answer unimplemented.
  const client = adminClientOn(transport);
  return { client, calls, users, flows, companies };
}

type Engine = ReturnType<typeof fakeEngine>;

interface Run {
  out: string;
  err: string;
  code: number;
}

function flowhook(engine: Engine, ...args: string[]): Promise<Run> {
  return runCapturing(args, { admin: { client: engine.client } });
}

const dir = mkdtempSync(join(tmpdir(), 'flowhook-cli-'));
function flowFile(name: string, options: { company?: string; activity?: string; steps?: string } = {}): string {
  const path = join(dir, `${name}.flow.yaml`);
  writeFileSync(
    path,
    `company: ${options.company ?? 'Acme'}
name: ${name}
description: Test flow ${name}
trigger:
  webhook:
    description: Someone calls
    activity: ${options.activity ?? `acme.${name}`}
    responseMode: WAIT_FOR_RESPONSE_STEP
    syncTimeoutSeconds: 12
steps:
${options.steps ?? `  - respond: { description: Answer, statusCode: 201, body: 'ok' }`}
`,
  );
  return path;
}

async function engineWithCompany(): Promise<Engine> {
  const engine = fakeEngine();
  await flowhook(engine, 'company', 'create', 'Acme');
  return engine;
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

test('company create and list, as text and as one JSON document', async (t) => {
  const engine = fakeEngine();
  const created = await flowhook(engine, 'company', 'create', 'Acme', '--json');
  t.is(created.code, 0, created.err);
  t.deepEqual(JSON.parse(created.out), { company: { name: 'Acme' } });

  const text = await flowhook(engine, 'company', 'list');
  t.regex(text.out, /^NAME\s+CREATED\nAcme/);
  const json = await flowhook(engine, 'company', 'list', '--json');
  t.deepEqual(JSON.parse(json.out), { companies: [{ name: 'Acme' }] });
});

test('a NotFound error exits non-zero with the engine message and the code in words', async (t) => {
  const engine = fakeEngine();
  const run = await flowhook(engine, 'flow', 'show', 'Nope', 'some-flow');
  t.is(run.code, 1);
  t.is(run.out, '');
  t.regex(run.err, /not found: company "Nope" does not exist/);

  const json = await flowhook(engine, 'flow', 'show', 'Nope', 'some-flow', '--json');
  t.is(json.code, 1);
  t.deepEqual(JSON.parse(json.out), { error: { code: 'not_found', message: 'company "Nope" does not exist' } });
  t.regex(json.err, /not found/);
});

test('flow apply prints the generated secret once, then never again', async (t) => {
  const engine = await engineWithCompany();
  const file = flowFile('payments');
  const first = await flowhook(engine, 'flow', 'apply', file);
  t.is(first.code, 0, first.err);
  const secret = engine.flows.get('Acme/payments')!.secret;
  t.is(occurrences(first.out, secret), 1);
  t.regex(first.out, /created — version 1, not published/);
  t.regex(first.out, /shown once, store it now/);

  const again = await flowhook(engine, 'flow', 'apply', file, '--publish');
  t.is(again.code, 0, again.err);
  t.false(again.out.includes(secret));
  t.regex(again.out, /unchanged — version 1 already has this definition, published/);
});

test('flow apply --json gives one document with a result per file', async (t) => {
  const engine = await engineWithCompany();
  const run = await flowhook(
    engine,
    'flow',
    'apply',
    flowFile('one'),
    flowFile('two', { steps: '  - sleep: { duration: 1s }' }),
    '--publish',
    '--json',
  );
  t.is(run.code, 0, run.err);
  const { results } = JSON.parse(run.out);
  t.is(results.length, 2);
  t.is(results[0].created, true);
  t.is(results[0].secret, engine.flows.get('Acme/one')!.secret);
  t.is(results[1].flow.publishedVersion, 1);
  // Warnings name the field, and the file's line and column go in front, as for errors.
  t.deepEqual(results[1].warnings, [
    `${join(dir, 'two.flow.yaml')}:11:12: steps[0].sleep: a deferral can run before any respond step`,
  ]);
});

test('an invalid file applies nothing; an engine error still applies the other files', async (t) => {
  const engine = await engineWithCompany();
  const bad = join(dir, 'bad.flow.yaml');
  writeFileSync(bad, 'company: Acme\nname: bad\ntrigger:\n  webhook:\n    secret: nope\n');
  const refused = await flowhook(engine, 'flow', 'apply', flowFile('fine'), bad);
  t.is(refused.code, 1);
  t.regex(refused.err, /bad\.flow\.yaml:5:5: trigger\.webhook\.secret: secrets are never stored in flow files/);
  t.regex(refused.err, /nothing was applied/);
  t.false(engine.calls.includes('applyFlow'));

  const mixed = await flowhook(
    engine,
    'flow',
    'apply',
    flowFile('elsewhere', { company: 'Ghost' }),
    flowFile('kept'),
    '--json',
  );
  t.is(mixed.code, 1);
  const { results } = JSON.parse(mixed.out);
  t.deepEqual(results[0].error, { code: 'not_found', message: 'company "Ghost" does not exist' });
  t.is(results[1].created, true);
  t.truthy(results[1].secret, 'the secret of the flow that was applied is not lost');
  t.regex(mixed.err, /elsewhere\.flow\.yaml: not found: company "Ghost" does not exist/);
});

test('flow show shows the card, and the Webhook Call section only once published', async (t) => {
  const engine = await engineWithCompany();
  await flowhook(engine, 'flow', 'apply', flowFile('card', { activity: 'Acme.Card' }));
  const secret = engine.flows.get('Acme/card')!.secret;

  const draft = await flowhook(engine, 'flow', 'show', 'Acme', 'card');
  t.is(draft.code, 0, draft.err);
  t.regex(draft.out, /Activity\s+acme\.card/);
  t.regex(draft.out, /Response mode\s+Wait for Response step/);
  t.regex(draft.out, /Sync timeout\s+12 s/);
  t.regex(draft.out, /Versions\s+latest 1, not published/);
  t.regex(draft.out, /1\. respond \(201\) — Answer/);
  t.notRegex(draft.out, /^Webhook Call$/m);

  await flowhook(engine, 'flow', 'publish', 'Acme', 'card');
  const live = await flowhook(engine, 'flow', 'show', 'Acme', 'card');
  t.regex(live.out, /^Webhook Call$/m);
  t.regex(live.out, /Method\s+POST/);
  t.regex(live.out, /URL\s+http:\/\/localhost:7048\/BC\/ODataV4\/flowWebhook_Invoke\?company=Acme/);
  t.regex(live.out, /"secret":"<secret>"/);
  t.regex(live.out, /curl -sS -X POST 'http:\/\/localhost:7048/);
  t.false(live.out.includes(secret), 'the card never shows the real secret');

  const json = JSON.parse((await flowhook(engine, 'flow', 'show', 'Acme', 'card', '--json')).out);
  t.is(json.webhookCall.method, 'POST');
  t.is(json.definition.trigger.webhook.responseMode, 'WAIT_FOR_RESPONSE_STEP');
});

test('instant-return flows show no sync timeout; nested if steps are listed', async (t) => {
  const engine = await engineWithCompany();
  const path = join(dir, 'instant.flow.json');
  writeFileSync(
    path,
    JSON.stringify({
      company: 'Acme',
      name: 'instant',
      trigger: { webhook: { activity: 'acme.instant' } },
      steps: [
        {
          if: {
            description: 'big order?',
            condition: '${Trigger.Payload.amount > 100}',
            then: [{ log: { description: 'note it', message: 'big' } }],
          },
        },
      ],
    }),
  );
  t.is((await flowhook(engine, 'flow', 'apply', path)).code, 0);
  const { out } = await flowhook(engine, 'flow', 'show', 'Acme', 'instant');
  t.regex(out, /Response mode\s+Instant return/);
  t.notRegex(out, /Sync timeout/);
  t.regex(out, /1\. if \(\$\{Trigger\.Payload\.amount > 100\}\) — big order\?\n\s+then:\n\s+1\. log — note it/);
});

test('flow list, publish and unpublish', async (t) => {
  const engine = await engineWithCompany();
  await flowhook(engine, 'flow', 'apply', flowFile('listed'));
  const table = await flowhook(engine, 'flow', 'list', '--company', 'Acme');
  t.regex(table.out, /^COMPANY\s+NAME\s+ACTIVITY\s+LATEST\s+PUBLISHED/);
  t.regex(table.out, /Acme\s+listed\s+acme\.listed\s+1\s+—/);

  const published = await flowhook(engine, 'flow', 'publish', 'Acme', 'listed', '--version', '1');
  t.regex(published.out, /version 1 now answers activity acme\.listed/);
  const json = JSON.parse((await flowhook(engine, 'flow', 'list', '--json')).out);
  t.is(json.flows[0].publishedVersion, 1);

  const unpublished = await flowhook(engine, 'flow', 'unpublish', 'Acme', 'listed', '--json');
  t.is(JSON.parse(unpublished.out).flow.publishedVersion, 0);

  const usage = await flowhook(engine, 'flow', 'publish', 'Acme', 'listed', '--version', 'latest');
  t.is(usage.code, 2);
  t.regex(usage.err, /--version/);
});

test('flow pause and resume say what changed, as text and JSON; the list and card show a paused flow; a missing argument is a usage error', async (t) => {
  const engine = await engineWithCompany();
  await flowhook(engine, 'flow', 'apply', flowFile('held'), '--publish');
  const paused = await flowhook(engine, 'flow', 'pause', 'Acme', 'held');
  t.is(paused.code, 0, paused.err);
  t.regex(
    paused.out,
    /Paused flow "held" \(company Acme\): calls are accepted, their executions wait until: flowhook flow resume Acme held/,
  );
  t.regex((await flowhook(engine, 'flow', 'list')).out, /Acme\s+held\s+acme\.held\s+1\s+1 \(paused\)/);
  t.regex(
    (await flowhook(engine, 'flow', 'show', 'Acme', 'held')).out,
    /Paused\s+since .*flowhook flow resume Acme held/,
  );
  const again = JSON.parse((await flowhook(engine, 'flow', 'pause', 'Acme', 'held', '--json')).out);
  t.false(again.changed);
  t.truthy(again.flow.pausedAt);

  const resumed = await flowhook(engine, 'flow', 'resume', 'Acme', 'held');
  t.regex(resumed.out, /Resumed flow "held" \(company Acme\): held executions run now/);
  t.regex((await flowhook(engine, 'flow', 'resume', 'Acme', 'held')).out, /was not paused; nothing changed/);

  const missing = await flowhook(engine, 'flow', 'pause', 'Acme');
  t.is(missing.code, 2);
  const unknown = await flowhook(engine, 'flow', 'pause', 'Acme', 'nope');
  t.is(unknown.code, 1);
  t.regex(unknown.err, /does not exist/);
});

test('secret rotate prints the new secret once', async (t) => {
  const engine = await engineWithCompany();
  await flowhook(engine, 'flow', 'apply', flowFile('rotating'));
  const run = await flowhook(engine, 'secret', 'rotate', 'Acme', 'ACME.rotating');
  t.is(run.code, 0, run.err);
  const secret = engine.flows.get('Acme/rotating')!.secret;
  t.is(occurrences(run.out, secret), 1);
  t.regex(run.out, /previous secret no longer works/);
  t.regex(run.out, /shown once/);

  const json = JSON.parse((await flowhook(engine, 'secret', 'rotate', 'Acme', 'acme.rotating', '--json')).out);
  t.is(json.secret, engine.flows.get('Acme/rotating')!.secret);
});

test('user create passes the options and prints the access key once', async (t) => {
  const engine = await engineWithCompany();
  const run = await flowhook(
    engine,
    'user',
    'create',
    'svc',
    '--company',
    'Acme',
    '--permission-set',
    'FLOW RUN',
    '--expires-at',
    '2030-01-01T00:00:00Z',
  );
  t.is(run.code, 0, run.err);
  const [request] = engine.users;
  t.is(request?.company, 'Acme');
  t.is(request?.permissionSet, 'FLOW RUN');
  t.is(timestampDate(request!.accessKeyExpiresAt!).toISOString(), '2030-01-01T00:00:00.000Z');
  const key = /key-[0-9a-f]+/.exec(run.out)?.[0];
  t.truthy(key);
  t.is(occurrences(run.out, key!), 1);

  const json = await flowhook(engine, 'user', 'create', 'svc2', '--all-companies', '--json');
  t.regex(JSON.parse(json.out).accessKey, /^key-/);
  t.is(engine.users[1]?.company, '');
  t.true(engine.users[1]?.allCompanies, 'an all-companies grant is asked for, never implied');
  const both = await flowhook(engine, 'user', 'create', 'svc4', '--company', 'Acme', '--all-companies');
  t.is(both.code, 2);
  t.regex(both.err, /option '--company <name>' cannot be used with option '--all-companies'/);

  const bad = await flowhook(engine, 'user', 'create', 'svc3', '--expires-at', 'tomorrow');
  t.is(bad.code, 2);
  t.is(engine.users.length, 2);
});
