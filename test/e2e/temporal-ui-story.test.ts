// What an operator sees in the Temporal UI without opening an execution
// (issue 13, part 1): a one-line static summary and Markdown details fixed at
// start (metadata only, also for doNotLogPayload flows), the flow version, and
// the outcome of the caller's window as searchable attributes — which
// `flowhook execution list` filters by.
import test from 'ava';
import { FLOW_OUTCOME_KEY, FLOW_VERSION_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { SYNC_WINDOW_TIMER_SUMMARY } from '../../workflows/interpreter/outcome-attribute.ts';
import * as messages from '../../flow/flow-messages.ts';
import { cliAgainst, executionCliAgainst } from '../support/cli-runner.ts';
import { eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let target: TargetServer;
const secrets: Record<string, string> = {};
const MARKER = 'PAYLOAD-MARKER-4a1f';

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Story Co');
  target = await startTargetServer((request) => ({ delayMs: request.path.startsWith('/slow') ? 2500 : 0 }));
  const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP' };
  const flows: Record<string, [Record<string, unknown>, unknown[]]> = {
    'story.responded': [
      { ...sync, description: 'Take an order from the shop' },
      [{ respond: { description: 'Accept', statusCode: 201, body: 'ok' } }],
    ],
    'story.timeout': [
      { ...sync, syncTimeoutSeconds: 1 },
      [
        {
          httpRequest: {
            description: 'Ask the slow ERP',
            url: `${target.url}/slow/erp`,
            method: 'POST',
            timeout: '10s',
          },
        },
        { respond: { description: 'Too late', statusCode: 200, body: 'late' } },
      ],
    ],
    'story.ended': [sync, [{ log: { description: 'Only logs', message: 'done' } }]],
    'story.failed': [sync, [{ fail: { description: 'Refuse', message: 'not today' } }]],
    'story.instant': [
      { responseMode: 'INSTANT_RETURN' },
      [{ log: { description: 'Background work', message: 'done' } }],
    ],
    'story.hidden': [
      { ...sync, doNotLogPayload: true },
      [{ respond: { description: 'Accept quietly', statusCode: 200, body: 'ok' } }],
    ],
  };
  for (const [activity, [trigger, steps]] of Object.entries(flows)) {
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), { activity, ...trigger }, steps))
    ).secret;
  }
});
test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

async function call(activity: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity,
    secret: secrets[activity]!,
    auth: tenant.auth,
    payloadText: JSON.stringify({ card: MARKER }),
    headers,
  });
  // A flow that failed before responding is a 500 whose message names the execution.
  const id = answer.executionId ?? /\(execution ([^)]+)\)/.exec(answer.text)?.[1];
  if (!id) throw new Error(`${activity}: no execution id in ${answer.status} ${answer.text}`);
  return id;
}

async function closed(executionId: string): Promise<void> {
  await stack.temporal.workflow
    .getHandle(executionId)
    .result()
    .catch(() => undefined);
}

test('the list row and header say what an execution is: summary and details, never the payload', async (t) => {
  const id = await call('story.responded', { 'idempotency-key': 'order-4711' });
  const description = await stack.temporal.workflow.getHandle(id).describe();
  t.is(await description.staticSummary(), 'story.responded · Story Co · story-responded v1 · wait for response');
  const details = (await description.staticDetails()) ?? '';
  t.regex(details, /\*\*Take an order from the shop\*\*/);
  t.regex(details, /caller: `user:/);
  t.regex(details, /idempotency key: `order-4711`/);
  t.regex(details, /flowhook execution show story\.responded:key-/);
  t.false(details.includes(MARKER));

  const hidden = await stack.temporal.workflow.getHandle(await call('story.hidden')).describe();
  t.is(await hidden.staticSummary(), 'story.hidden · Story Co · story-hidden v1 · wait for response');
  const hiddenDetails = (await hidden.staticDetails()) ?? '';
  t.regex(hiddenDetails, /payload: encrypted \(doNotLogPayload\)/);
  t.false(hiddenDetails.includes(MARKER));
});

test('FlowVersion and FlowOutcome tell how the caller was answered; execution list filters by them', async (t) => {
  const expected: Record<string, string> = {
    'story.responded': 'responded',
    'story.timeout': 'sync timeout',
    'story.ended': 'flow ended',
    'story.failed': 'failed',
    'story.instant': 'instant',
  };
  const cli = executionCliAgainst(stack, stack.tokens.admin);
  const ids: Record<string, string> = {};
  for (const activity of Object.keys(expected)) ids[activity] = await call(activity);
  for (const [activity, outcome] of Object.entries(expected)) {
    await closed(ids[activity]!);
    const attributes = (await stack.temporal.workflow.getHandle(ids[activity]!).describe()).typedSearchAttributes;
    t.is(attributes.get(FLOW_OUTCOME_KEY), outcome, activity);
    t.is(attributes.get(FLOW_VERSION_KEY), 1, activity);
  }

  // Visibility is eventually consistent: wait until the list shows the timed-out one.
  const listed = await eventually(
    () => cli('execution', 'list', '--company', tenant.company, '--outcome', 'sync-timeout', '--flow-version', '1'),
    {
      until: (run) => run.out.includes(ids['story.timeout']!),
      intervalMs: 250,
      what: 'the timed-out execution listed by its outcome',
      show: (run) => run.out,
    },
  );
  t.regex(listed.out, /story\.timeout\s+1\s+sync timeout/);
  for (const [activity, id] of Object.entries(ids))
    if (activity !== 'story.timeout') t.false(listed.out.includes(id), `${activity} is not a sync timeout`);
  const none = await cli('execution', 'list', '--company', tenant.company, '--flow-version', '2');
  t.regex(none.out, /No executions\./);
  const wrong = await cli('execution', 'list', '--outcome', 'exploded');
  // Refused by the CLI itself, before anything is sent: a usage error naming every outcome.
  t.is(wrong.code, 2);
  t.regex(wrong.err, /"exploded" is not one of responded, sync-timeout, flow-ended, instant, failed/);
});

test('the UI lists exactly the updates and queries flow/ defines, and no signal', async (t) => {
  const id = await call('story.responded');
  await closed(id);
  // Temporal's own query, answered by the SDK: what the UI shows as the execution's handlers.
  const metadata = await stack.temporal.workflow
    .getHandle(id)
    .query<{ definition: Record<'updateDefinitions' | 'queryDefinitions' | 'signalDefinitions', { name: string }[]> }>(
      '__temporal_workflow_metadata',
    );
  const defined = Object.values(messages);
  const names = (kind: string) =>
    defined
      .filter((definition) => definition.type === kind)
      .map((definition) => definition.name)
      .sort();
  // Names starting with "__" are the SDK's built-in queries.
  const registered = (list: { name: string }[]) =>
    list
      .map((handler) => handler.name)
      .filter((name) => !name.startsWith('__'))
      .sort();
  t.deepEqual(registered(metadata.definition.updateDefinitions), names('update'));
  t.deepEqual(registered(metadata.definition.queryDefinitions), names('query'));
  t.deepEqual(registered(metadata.definition.signalDefinitions), names('signal'));
  t.true(names('update').length > 0 && names('query').length > 0);
});

test('the current details say which step runs and what it waits for — a host, never a path', async (t) => {
  const id = await call('story.timeout');
  // The caller got its default answer after 1 s; the ERP call still waits (2.5 s).
  const metadata = await stack.temporal.workflow
    .getHandle(id)
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  t.is(
    metadata.currentDetails,
    `**step 1/2** · Ask the slow ERP (httpRequest) · waiting for ${new URL(target.url).host}`,
  );
  t.false(String(metadata.currentDetails).includes('/slow/erp'));
  await closed(id);
  // The timers bounding the caller's wait are named too (the UI would show "1 (1s)" otherwise).
  const history = await stack.temporal.workflow.getHandle(id).fetchHistory();
  const timers = (history.events ?? []).filter((event) => event.timerStartedEventAttributes);
  t.true(timers.length > 0);
  const converter = stack.temporal.options.loadedDataConverter.payloadConverter;
  for (const timer of timers) t.is(converter.fromPayload(timer.userMetadata!.summary!), SYNC_WINDOW_TIMER_SUMMARY);
});

test("flow list shows each flow's trigger description, where an operator looks first", async (t) => {
  const { flows } = await stack.admin.listFlows({ company: tenant.company });
  t.is(flows.find((entry) => entry.name === 'story-responded')?.triggerDescription, 'Take an order from the shop');
  const listed = await cliAgainst(stack)('flow', 'list', '--company', tenant.company);
  t.regex(listed.out, /TRIGGER/);
  t.regex(listed.out, /story-responded\s+story\.responded\s+1\s+1\s+set\s+\S+\s+Take an order from the shop/);
});
