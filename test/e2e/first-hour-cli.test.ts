// The first hour, as a new user meets it through the CLI against a real
// engine: a failed `flow apply --publish` changes nothing and loses no secret,
// every publish that shows no secret names the exact `secret rotate`
// command, and refusals say what to do (company spelling, flow name vs
// activity).
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { cliAgainst, type CliRun } from '../support/cli-runner.ts';
import { callWebhook, createTenant, type Tenant } from '../support/webhook-helpers.ts';

const COMPANY = 'First Hour & Co';
let stack: TestStack;
let tenant: Tenant;
let cli: (...args: string[]) => Promise<CliRun>;
const dir = mkdtempSync(join(tmpdir(), 'flowhook-first-hour-'));

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, COMPANY);
  cli = cliAgainst(stack);
});
test.after.always(async () => stack?.close());

function flowFile(name: string, activity: string, steps: string): string {
  const path = join(dir, `${name}-${Math.random().toString(36).slice(2, 8)}.flow.yaml`);
  writeFileSync(
    path,
    [
      `company: "${COMPANY}"`,
      `name: ${name}`,
      'trigger:',
      '  webhook:',
      `    activity: ${activity}`,
      '    responseMode: WAIT_FOR_RESPONSE_STEP',
      'steps:',
      steps,
      '',
    ].join('\n'),
  );
  return path;
}

const RESPOND = '  - respond: { statusCode: 200, contentType: text/plain, body: "ok" }';
const SECRET_LINE = /shown once, store it now[^\n]*\n\s+([A-Za-z0-9_-]{32})\n/;
const ROTATE_HINT = (activity: string) => `flowhook secret rotate 'First Hour & Co' ${activity}`;

async function flowJson(
  name: string,
): Promise<{ code: number; json: { flow?: { latestVersion?: number; publishedVersion?: number } }; err: string }> {
  const run = await cli('flow', 'show', COMPANY, name, '--json');
  return { code: run.code, json: run.code === 0 ? JSON.parse(run.out) : JSON.parse(run.out || '{}'), err: run.err };
}

test('a failed first publish stores nothing; the corrected apply creates the flow and shows its secret', async (t) => {
  const bad = flowFile('first-publish', 'first.publish', `  - sleep: { duration: "soon" }\n${RESPOND}`);
  const failed = await cli('flow', 'apply', bad, '--publish');
  t.is(failed.code, 1);
  t.regex(failed.err, /cannot be published[\s\S]*steps\[0\]\.sleep\.duration/);
  t.regex(failed.err, /nothing was stored for this file/);
  t.notRegex(failed.out + failed.err, /shown once/);
  // No flow, no version, no secret generated behind the user's back.
  const missing = await flowJson('first-publish');
  t.is(missing.code, 1);
  t.regex(missing.err, /does not exist/);
  const listed = JSON.parse((await cli('flow', 'list', '--company', COMPANY, '--json')).out) as {
    flows: { name: string }[];
  };
  t.false(listed.flows.some((flow) => flow.name === 'first-publish'));

  const good = flowFile('first-publish', 'first.publish', RESPOND);
  const applied = await cli('flow', 'apply', good, '--publish');
  t.is(applied.code, 0, applied.err);
  t.regex(applied.out, /flow "first-publish" \(company First Hour & Co\) created — version 1, published/);
  const secret = SECRET_LINE.exec(applied.out)?.[1];
  t.truthy(secret, applied.out);
  const answer = await callWebhook(stack, {
    company: COMPANY,
    activity: 'first.publish',
    secret: secret!,
    auth: tenant.auth,
  });
  t.is(answer.status, 200, answer.text);
  t.is(answer.value?.body, 'ok');
});

test('a new flow whose activity another flow publishes is refused whole: no draft, no secret', async (t) => {
  t.is((await cli('flow', 'apply', flowFile('holder', 'taken.activity', RESPOND), '--publish')).code, 0);
  const intruder = await cli('flow', 'apply', flowFile('intruder', 'TAKEN.activity', RESPOND), '--publish', '--json');
  t.is(intruder.code, 1);
  const result = JSON.parse(intruder.out).results[0];
  t.regex(result.error.message, /"taken\.activity" is already published by flow "holder"/);
  t.is((await flowJson('intruder')).code, 1);
});

test('an invalid new version of a published flow is not saved; the published version keeps answering', async (t) => {
  const first = await cli('flow', 'apply', flowFile('steady', 'steady.flow', RESPOND), '--publish');
  const secret = SECRET_LINE.exec(first.out)![1]!;
  const broken = await cli(
    'flow',
    'apply',
    flowFile('steady', 'steady.flow', '  - respond: { statusCode: 101, body: "x" }'),
    '--publish',
  );
  t.is(broken.code, 1);
  t.regex(broken.err, /steps\[0\]\.respond\.statusCode/);
  const { json } = await flowJson('steady');
  t.is(json.flow?.latestVersion, 1);
  t.is(json.flow?.publishedVersion, 1);
  t.is(
    (await callWebhook(stack, { company: COMPANY, activity: 'steady.flow', secret, auth: tenant.auth })).status,
    200,
  );
});

test('every publish that shows no secret names the exact secret rotate command', async (t) => {
  await cli('flow', 'apply', flowFile('reminded', 'reminded.flow', RESPOND), '--publish');
  const updated = await cli(
    'flow',
    'apply',
    flowFile('reminded', 'reminded.flow', `  - log: { message: "v2" }\n${RESPOND}`),
    '--publish',
  );
  t.is(updated.code, 0, updated.err);
  t.regex(updated.out, /updated — version 2, published/);
  t.notRegex(updated.out, /shown once/);
  t.true(updated.out.includes(ROTATE_HINT('reminded.flow')), updated.out);
  const republished = await cli('flow', 'publish', COMPANY, 'reminded', '--version', '1');
  t.is(republished.code, 0, republished.err);
  t.true(republished.out.includes(ROTATE_HINT('reminded.flow')), republished.out);
  // The command works as printed (quoting included).
  const rotated = await cli('secret', 'rotate', COMPANY, 'reminded.flow');
  t.is(rotated.code, 0, rotated.err);
  t.regex(rotated.out, /shown once/);
});

test('secret rotate given a flow name explains flow name vs activity and names the right command', async (t) => {
  await cli('flow', 'apply', flowFile('named-flow', 'named.activity', RESPOND), '--publish');
  const run = await cli('secret', 'rotate', COMPANY, 'named-flow');
  t.is(run.code, 1);
  t.regex(
    run.err,
    /"named-flow" is the name of a flow; secrets belong to the activity callers send \(this flow's is "named\.activity"\)/,
  );
  t.true(run.err.includes(ROTATE_HINT('named.activity')), run.err);
  const unknown = await cli('secret', 'rotate', COMPANY, 'no.such.thing');
  t.regex(unknown.err, /list the activities with: flowhook flow list --company 'First Hour & Co'/);
});

test('a company name that differs in case suggests the right one; a missing one suggests company create', async (t) => {
  const wrongCase = await cli('user', 'create', 'svc-case', '--company', 'first hour & co');
  t.is(wrongCase.code, 1);
  t.regex(
    wrongCase.err,
    /Company "first hour & co" does not exist; did you mean "First Hour & Co"\? \(company names are case-sensitive\)/,
  );
  const missing = await cli('flow', 'list', '--company', 'Nowhere_Inc');
  t.regex(missing.err, /Company "Nowhere_Inc" does not exist; create it with: flowhook company create Nowhere_Inc/);
  // A caller with no set in the company named learns nothing about it; one with a set for all companies
  // gets the spelling hint, not an admin command.
  t.is(
    (
      await callWebhook(stack, {
        company: 'FIRST HOUR & CO',
        activity: 'first.publish',
        secret: 'x'.repeat(32),
        auth: tenant.auth,
      })
    ).status,
    401,
  );
  const everywhere = JSON.parse(
    (await cli('user', 'create', 'svc-everywhere', '--all-companies', '--json')).out,
  ).accessKey;
  const auth = `Basic ${Buffer.from(`svc-everywhere:${everywhere}`).toString('base64')}`;
  const call = await callWebhook(stack, {
    company: 'FIRST HOUR & CO',
    activity: 'first.publish',
    secret: 'x'.repeat(32),
    auth,
  });
  t.is(call.status, 404);
  t.regex(JSON.parse(call.text).error.message, /did you mean "First Hour & Co"/);
  t.notRegex(call.text, /company create/);
});

test("the handbook's Temporal UI query finds a failed execution by flow name", async (t) => {
  const applied = await cli(
    'flow',
    'apply',
    flowFile('failing-flow', 'failing.flow', '  - fail: { message: "the ERP said no" }'),
    '--publish',
  );
  const secret = SECRET_LINE.exec(applied.out)![1]!;
  const answer = await callWebhook(stack, { company: COMPANY, activity: 'failing.flow', secret, auth: tenant.auth });
  t.is(answer.status, 500);
  // The 500 names the execution (its id header belongs to successful answers only).
  const executionId = /failing\.flow:[0-9a-f-]{36}/.exec(answer.text)?.[0];
  t.truthy(executionId, answer.text);
  await t.throwsAsync(stack.temporal.workflow.getHandle(executionId!).result());
  // Visibility is eventually consistent.
  const failed = async () => {
    const ids: string[] = [];
    for await (const execution of stack.temporal.workflow.list({
      query: `FlowName="failing-flow" AND ExecutionStatus="Failed" AND TaskQueue="${stack.taskQueue}"`,
    }))
      ids.push(execution.workflowId);
    return ids;
  };
  const found = await eventually(failed, { until: (ids) => ids.length > 0, what: 'the failed execution listed' });
  t.deepEqual(found, [executionId]);
});

test('formula mistakes are caught at publish and reported with the file line', async (t) => {
  const file = flowFile(
    'typo-flow',
    'typo.flow',
    `${RESPOND}\n  - log: { message: "\${ $exist(Trigger.Paylod.id) }" }`,
  );
  const run = await cli('flow', 'apply', file, '--publish');
  t.is(run.code, 1);
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  t.regex(
    run.err,
    new RegExp(
      `- ${escaped}:9:\\d+: steps\\[1\\]\\.log\\.message: .*unknown function \\$exist \\(did you mean \\$exists\\?\\)`,
    ),
  );
  t.regex(
    run.err,
    new RegExp(`- ${escaped}:9:\\d+: steps\\[1\\]\\.log\\.message: .*"Trigger\\.Paylod" does not exist`),
  );
  t.is((await flowJson('typo-flow')).code, 1);
});
