// `flowhook execution rerun` against a real engine, worker and Temporal: a
// flow that fails on version 1 is fixed in version 2 and its failed
// executions re-run — one by id (on the published version, or pinned with
// --same-version) and in bulk by filter — with the exact payload text and
// trigger context; re-runs and originals link both ways; a doNotLogPayload
// payload stays encrypted in the re-run's history; only admin tokens re-run.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import {
  RERUN_OF_KEY,
  FLOW_VERSION_KEY,
  RESPONSE_MODE_KEY,
} from '../../engine/infrastructure/temporal/search-attributes.ts';
import { executionCliAgainst } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { recordClient } from '../support/record-client.ts';
import { signStandardV1, standardWebhooksSecret } from '../support/provider-signers.ts';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';
import { historyText } from '../support/history-text.ts';

let stack: TestStack;
let tenant: Tenant;
const secrets: Record<string, string> = {};

// Spacing, a big integer and a trailing zero: re-serialised JSON would lose all three.
const PAYLOAD = '{"order":  12345678901234567890, "price": 1.10 ,"note": "a  b"}';
const HOOK_SECRET = standardWebhooksSecret();
const broken = [{ fail: { description: 'Broken on v1', message: 'version 1 is broken' } }];
/** Version 2 writes what it saw into a record keyed by its execution id. */
const fixed = (fields: Record<string, string>) => [
  { record: { description: 'Note what arrived', table: 'seen', key: '${Execution.Id}', insert: fields } },
];
const mixed = [
  {
    if: {
      description: 'Fine?',
      condition: '${Trigger.Payload.ok}',
      then: [{ log: { description: 'Fine', message: 'ok' } }],
      else: broken,
    },
  },
];

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, "Re-run Co'");
  secrets.orders = (
    await deployFlow(stack, flow(tenant.company, 'orders', { activity: 'rerun.orders' }, broken))
  ).secret;
  secrets.bulk = (await deployFlow(stack, flow(tenant.company, 'bulk', { activity: 'rerun.bulk' }, mixed))).secret;
  secrets.other = (await deployFlow(stack, flow(tenant.company, 'other', { activity: 'rerun.other' }, broken))).secret;
  secrets.slow = (
    await deployFlow(
      stack,
      flow(tenant.company, 'slow', { activity: 'rerun.slow' }, [
        { sleep: { description: 'Take a while', duration: '60s' } },
      ]),
    )
  ).secret;
  await deployFlow(
    stack,
    flow(
      tenant.company,
      'provider',
      { activity: 'rerun.provider', direct: { verify: { standardWebhooks: {} } } },
      broken,
    ),
  );
  await stack.admin.setHookSecret({ company: tenant.company, activity: 'rerun.provider', secret: HOOK_SECRET });
  secrets.hidden = (
    await deployFlow(stack, flow(tenant.company, 'hidden', { activity: 'rerun.hidden', doNotLogPayload: true }, broken))
  ).secret;
});
test.after.always(async () => {
  await stack?.close();
});

const cli = (...args: string[]) => executionCliAgainst(stack, stack.adminToken)(...args);
const call = (name: string, payloadText: string) =>
  callWebhook(stack, {
    company: tenant.company,
    activity: `rerun.${name}`,
    secret: secrets[name]!,
    auth: tenant.auth,
    payloadText,
  });

/** Calls the flow and waits until the execution closed (failed or completed). */
async function closedExecution(name: string, payloadText: string): Promise<string> {
  const answer = await call(name, payloadText);
  if (!answer.executionId) throw new Error(`no execution: ${answer.status} ${answer.text}`);
  await stack.temporal.workflow
    .getHandle(answer.executionId)
    .result()
    .catch(() => undefined);
  return answer.executionId;
}

async function settled(executionId: string): Promise<string> {
  const handle = stack.temporal.workflow.getHandle(executionId);
  await handle.result().catch(() => undefined);
  return (await handle.describe()).status.name;
}

const seen = async (key: string) =>
  (await recordClient(stack).getRecord({ scope: { company: tenant.company, table: 'seen', key } })).record?.data as
    Record<string, unknown> | undefined;

test.serial(
  'a failed execution re-runs on the version now published, with the exact payload, linked both ways',
  async (t) => {
    const original = await closedExecution('orders', PAYLOAD);
    t.is(await settled(original), 'FAILED');
    await deployFlow(
      stack,
      flow(
        tenant.company,
        'orders',
        { activity: 'rerun.orders' },
        fixed({ payload: '{{Trigger.Payload}}', activity: '{{Trigger.Activity}}' }),
      ),
    );

    const rerun = await cli('execution', 'rerun', original, '--json');
    t.is(rerun.code, 0, rerun.err);
    const started = JSON.parse(rerun.out).rerun;
    t.is(started.originalExecutionId, original);
    t.is(started.flowVersion, 2);
    t.regex(started.executionId, /^rerun\.orders:rerun-[0-9a-f-]{36}$/);
    t.is(await settled(started.executionId), 'COMPLETED');
    t.deepEqual(
      await seen(started.executionId),
      { payload: PAYLOAD, activity: 'rerun.orders' },
      'the flow saw the exact payload text',
    );

    const description = await stack.temporal.workflow.getHandle(started.executionId).describe();
    t.is(description.typedSearchAttributes.get(RERUN_OF_KEY), original);
    t.is(description.typedSearchAttributes.get(FLOW_VERSION_KEY), 2);
    t.is(description.typedSearchAttributes.get(RESPONSE_MODE_KEY), 'INSTANT_RETURN');
    t.is(description.memo?.rerunOf, original);
    t.regex(String(await description.staticDetails()), new RegExp(`re-run of \`${original.replace(/[.]/g, '\\.')}\``));

    const shownRerun = JSON.parse((await cli('execution', 'show', started.executionId, '--json')).out);
    t.is(shownRerun.rerunOf, original);
    t.is(shownRerun.payloadJson, PAYLOAD);
    t.is(
      shownRerun.caller,
      JSON.parse((await cli('execution', 'show', original, '--json')).out).caller,
      'the trigger context is the original caller',
    );
    const shownOriginal = await eventually(
      async () => JSON.parse((await cli('execution', 'show', original, '--json')).out),
      {
        until: (shown) => shown.reruns.length > 0,
        what: 'the re-run linked from the original',
      },
    );
    t.deepEqual(shownOriginal.reruns, [started.executionId]);
    t.regex((await cli('execution', 'show', original)).out, new RegExp(`Re-runs\\s+${started.executionId}`));
    t.regex((await cli('execution', 'show', started.executionId)).out, new RegExp(`Re-run of\\s+${original}`));
  },
);

test.serial('--same-version re-runs on the original version; a running or unknown execution is refused', async (t) => {
  const original = await closedExecution('other', '{"n": 1}');
  await deployFlow(
    stack,
    flow(tenant.company, 'other', { activity: 'rerun.other' }, fixed({ payload: '{{Trigger.Payload}}' })),
  );
  const pinned = await cli('execution', 'rerun', original, '--same-version');
  t.is(pinned.code, 0, pinned.err);
  const [, rerunId] = /as (\S+) \(flow version 1\)/.exec(pinned.out) ?? [];
  t.truthy(rerunId, pinned.out);
  t.is(await settled(rerunId!), 'FAILED', 'version 1 is still broken');
  t.is((await stack.temporal.workflow.getHandle(rerunId!).describe()).typedSearchAttributes.get(FLOW_VERSION_KEY), 1);

  const running = await call('slow', '{}');
  const stillRunning = await cli('execution', 'rerun', running.executionId!, '--json');
  t.is(stillRunning.code, 1);
  t.like(JSON.parse(stillRunning.out).error, {
    code: 'failed_precondition',
    message: `Execution "${running.executionId}" is still running; re-run it once it has closed`,
  });

  const unknown = await cli('execution', 'rerun', 'rerun.other:no-such-execution', '--json');
  t.is(unknown.code, 1);
  t.is(JSON.parse(unknown.out).error.code, 'not_found');
  const mixedUp = await cli('execution', 'rerun', original, '--status', 'FAILED');
  t.is(mixedUp.code, 2, 'a usage error');
  t.regex(mixedUp.err, /drop --status/);
});

test.serial(
  'bulk: --dry-run lists exactly the failed executions in the window; --yes re-runs each of them once',
  async (t) => {
    const since = new Date(Date.now() - 1000).toISOString();
    const failed = [];
    for (let i = 0; i < 3; i++) failed.push(await closedExecution('bulk', `{"ok": false, "i": ${i}}`));
    const completed = await closedExecution('bulk', '{"ok": true}');
    await closedExecution('other', '{"n": 2}'); // another activity: not in the filter
    const untilTime = new Date(Date.now() + 1000).toISOString();
    const filter = [
      '--company',
      tenant.company,
      '--activity',
      'rerun.bulk',
      '--status',
      'FAILED,TIMED_OUT',
      '--since',
      since,
      '--until',
      untilTime,
    ];

    const listed = await eventually(
      async () => JSON.parse((await cli('execution', 'rerun', ...filter, '--dry-run', '--json')).out),
      {
        until: (r) => r.matched === 3,
        what: 'three executions matched',
      },
    );
    t.is(listed.matched, 3);
    t.deepEqual(listed.executions.map((e: { executionId: string }) => e.executionId).sort(), [...failed].sort());
    t.false(listed.executions.some((e: { executionId: string }) => e.executionId === completed));
    t.deepEqual(listed.started, []);
    t.regex(
      (await cli('execution', 'rerun', ...filter, '--dry-run')).out,
      /^3 execution\(s\) would be re-run\.\nEXECUTION\s+ACTIVITY\s+VERSION\s+STATUS\s+STARTED\n/,
    );

    // No terminal to ask on, no --yes: nothing starts.
    const unconfirmed = await executionCliAgainst(stack, stack.adminToken, async () => undefined)(
      'execution',
      'rerun',
      ...filter,
    );
    t.is(unconfirmed.code, 1);
    t.regex(unconfirmed.err, /not re-run: 3 execution\(s\) match\. Confirm with --yes/);
    const declined = await executionCliAgainst(stack, stack.adminToken, async () => false)(
      'execution',
      'rerun',
      ...filter,
    );
    t.is(declined.code, 0);
    t.regex(declined.out, /Nothing re-run\./);
    const tooMany = await cli('execution', 'rerun', ...filter, '--yes', '--max', '2', '--json');
    t.is(JSON.parse(tooMany.out).error.code, 'failed_precondition');
    // The company's quote makes the engine check company names itself (visibility-query.ts), so it knows "more", not how many.
    t.regex(JSON.parse(tooMany.out).error.message, /^More than 2 executions match: narrow the filter/);

    await deployFlow(
      stack,
      flow(tenant.company, 'bulk', { activity: 'rerun.bulk' }, fixed({ payload: '{{Trigger.Payload}}' })),
    );
    const bulk = await executionCliAgainst(stack, stack.adminToken, async () => true)('execution', 'rerun', ...filter);
    t.is(bulk.code, 0, bulk.err);
    t.regex(bulk.out, /Re-ran 3 of 3 execution\(s\)\./);
    const pairs = [...bulk.out.matchAll(/^(rerun\.bulk:\S+)\s+(rerun\.bulk:rerun-\S+)\s+2$/gm)].map(
      ([, original, rerun]) => [original!, rerun!] as const,
    );
    t.deepEqual(pairs.map(([original]) => original).sort(), [...failed].sort());
    for (const [original, rerun] of pairs) {
      t.is(await settled(rerun), 'COMPLETED');
      t.is(
        (await stack.temporal.workflow.getHandle(rerun).describe()).typedSearchAttributes.get(RERUN_OF_KEY),
        original,
      );
      t.is((await seen(rerun))?.payload, `{"ok": false, "i": ${failed.indexOf(original)}}`);
    }
  },
);

test.serial("a provider-route execution re-runs with the provider's request as the flow saw it", async (t) => {
  const body = '{"type":  "order.created", "id": 7}';
  const signed = await signStandardV1(body, HOOK_SECRET);
  const url = `${stack.facadeUrl}/${INSTANCE}/hooks/${encodeURIComponent(tenant.company)}/rerun.provider`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-order-source': 'shop-7', ...signed },
    body,
  });
  t.is(response.status, 200, await response.text());
  const original = response.headers.get('x-flowhook-execution-id')!;
  t.is(await settled(original), 'FAILED');
  await deployFlow(
    stack,
    flow(
      tenant.company,
      'provider',
      { activity: 'rerun.provider', direct: { verify: { standardWebhooks: {} } } },
      fixed({
        body: '{{Trigger.Body}}',
        source: '${Trigger.Headers.`x-order-source`}',
        type: '${Trigger.Json.type}',
      }),
    ),
  );
  const rerun = JSON.parse((await cli('execution', 'rerun', original, '--json')).out).rerun;
  t.is(await settled(rerun.executionId), 'COMPLETED');
  t.deepEqual(await seen(rerun.executionId), { body, source: 'shop-7', type: 'order.created' });
});

test.serial(
  'a doNotLogPayload execution re-runs with its payload, which stays encrypted in the new history',
  async (t) => {
    const card = `CARD-${randomBytes(8).toString('hex')}`;
    const original = await closedExecution('hidden', `{"card": "${card}"}`);
    await deployFlow(
      stack,
      flow(
        tenant.company,
        'hidden',
        { activity: 'rerun.hidden', doNotLogPayload: true },
        fixed({ card: '${Trigger.Payload.card}' }),
      ),
    );
    const rerun = JSON.parse((await cli('execution', 'rerun', original, '--json')).out).rerun;
    t.is(await settled(rerun.executionId), 'COMPLETED');
    t.deepEqual(await seen(rerun.executionId), { card }, 'the re-run saw the payload');
    const shown = JSON.parse((await cli('execution', 'show', rerun.executionId, '--json')).out);
    t.true(shown.payloadWithheld);
    t.is(shown.rerunOf, original);
    t.false(JSON.stringify(shown).includes(card));
    const history = await historyText(rerun.executionId);
    t.true(history.includes('binary/encrypted'), 'the input is encrypted');
    t.false(history.includes(card), 'the card is nowhere in the history, not even base64-decoded');
  },
);

test.serial(
  'a doNotLogPayload original stays encrypted even when the version now published drops the flag',
  async (t) => {
    const card = `CARD-${randomBytes(8).toString('hex')}`;
    const original = await closedExecution('hidden', `{"card": "${card}"}`);
    await deployFlow(
      stack,
      flow(tenant.company, 'hidden', { activity: 'rerun.hidden' }, fixed({ card: '${Trigger.Payload.card}' })),
    );
    const rerun = JSON.parse((await cli('execution', 'rerun', original, '--json')).out).rerun;
    t.is(await settled(rerun.executionId), 'COMPLETED');
    t.false((await historyText(rerun.executionId)).includes(card));
  },
);

test('only admin tokens re-run executions', async (t) => {
  for (const scope of ['internal', 'records', 'worker', 'facade'] as const) {
    const client = createClient(
      ExecutionService,
      createConnectTransport({
        baseUrl: stack.engineUrl,
        httpVersion: '2',
        interceptors: [
          (next) => (request) => {
            request.header.set('authorization', `Bearer ${stack.tokens[scope]}`);
            return next(request);
          },
        ],
      }),
    );
    const refused = await t.throwsAsync(client.rerunExecution({ executionId: 'any' }), { instanceOf: ConnectError });
    t.is(refused.code, Code.PermissionDenied, scope);
    const bulk = await t.throwsAsync(
      client.rerunExecutions({ company: tenant.company, statuses: ['FAILED'], dryRun: true }),
      { instanceOf: ConnectError },
    );
    t.is(bulk.code, Code.PermissionDenied, scope);
  }
});
