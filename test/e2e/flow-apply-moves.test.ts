// `flowhook flow apply` of a file that moves a published flow for its callers
// — another activity, or no provider route where a hook secret is set (two
// example files sharing a flow name once did this silently) — says what would
// change and stores nothing without a yes: --yes, or a yes on a terminal.
// A version that moves nothing applies as before.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { stringify } from 'yaml';
import type { Confirm } from '../../bin/cli/execution-rerun-command.ts';
import { runCapturing, type CliRun } from '../support/cli-runner.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { createTenant, flow } from '../support/webhook-helpers.ts';

const COMPANY = 'Move Co';
let stack: TestStack;
const dir = mkdtempSync(join(tmpdir(), 'flowhook-apply-moves-'));

test.before(async () => {
  stack = await startStack();
  await createTenant(stack, COMPANY);
});
test.after.always(async () => {
  await stack?.close();
});

function cli(args: string[], options: { stdin?: string; confirm?: Confirm } = {}): Promise<CliRun> {
  return runCapturing(args, {
    admin: {
      client: stack.admin,
      secretStdin: () => ({ stream: Readable.from([Buffer.from(options.stdin ?? '', 'utf8')]), isTTY: false }),
      ...(options.confirm && { confirm: options.confirm }),
    },
  });
}

function flowFile(file: string, webhook: Record<string, unknown>): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    stringify(flow(COMPANY, 'invoice-events', webhook, [{ log: { description: 'Note it', message: 'got one' } }])),
  );
  return path;
}

async function versions(): Promise<{ latest: number; published: number; activity: string }> {
  const { flow: summary } = await stack.admin.getFlow({ company: COMPANY, name: 'invoice-events' });
  return { latest: summary!.latestVersion, published: summary!.publishedVersion, activity: summary!.activity };
}

test('an apply that moves the published flow needs a yes, and says what changes', async (t) => {
  const provider = flowFile('provider.flow.yaml', {
    activity: 'billing.invoice-events',
    direct: { verify: { standardWebhooks: {} } },
  });
  t.is((await cli(['flow', 'apply', provider, '--publish'])).code, 0);
  const secret = await cli(['hook-secret', 'set', COMPANY, 'billing.invoice-events', '--generate']);
  t.is(secret.code, 0, secret.err);

  // The same flow name with another activity and no provider route (the other example file).
  const moved = flowFile('control.flow.yaml', { activity: 'billing.invoice.event' });
  const refused = await cli(['flow', 'apply', moved, '--publish']);
  t.is(refused.code, 1);
  t.regex(refused.err, /moves the published flow "invoice-events" \(company Move Co, version 1\):/);
  t.regex(
    refused.err,
    /its activity changes from billing\.invoice-events to billing\.invoice\.event: calls for billing\.invoice-events will answer 404/,
  );
  t.regex(
    refused.err,
    /its provider route \S+\/hooks\/Move%20Co\/billing\.invoice-events goes away: .*hook-secret delete 'Move Co' billing\.invoice-events --yes/,
  );
  t.regex(refused.err, /not applied without a yes: give --yes/);
  t.regex(refused.err, /nothing was stored for this file/);
  t.deepEqual(await versions(), { latest: 1, published: 1, activity: 'billing.invoice-events' }, 'nothing changed');

  // With --json the refusal carries what would change, for a script.
  const json = await cli(['flow', 'apply', moved, '--json']);
  t.is(json.code, 1);
  const result = (JSON.parse(json.out) as { results: { error: { code: string; message: string } }[] }).results[0]!;
  t.is(result.error.code, 'failed_precondition');
  t.regex(result.error.message, /its activity changes from billing\.invoice-events to billing\.invoice\.event/);

  // A terminal that answers no stores nothing either; one that answers yes applies.
  const questions: string[] = [];
  const no = await cli(['flow', 'apply', moved], { confirm: async (question) => (questions.push(question), false) });
  t.is(no.code, 1);
  t.deepEqual(questions, ['Apply it anyway?']);
  t.is((await versions()).latest, 1);
  const yes = await cli(['flow', 'apply', moved], { confirm: async () => true });
  t.is(yes.code, 0, yes.err);
  t.deepEqual(
    await versions(),
    { latest: 2, published: 1, activity: 'billing.invoice.event' },
    'a draft: the published version still routes',
  );

  // --yes goes ahead without asking.
  const asked: string[] = [];
  const forced = await cli(['flow', 'apply', moved, '--publish', '--yes'], {
    confirm: async (question) => (asked.push(question), false),
  });
  t.is(forced.code, 0, forced.err);
  t.deepEqual(asked, []);
  t.like(await versions(), { published: 2, activity: 'billing.invoice.event' });
});

test('an apply that keeps the activity and the provider route asks nothing', async (t) => {
  const path = join(dir, 'steady.flow.yaml');
  const write = (message: string) =>
    writeFileSync(
      path,
      stringify(
        flow(COMPANY, 'steady', { activity: 'orders.steady', direct: { verify: { standardWebhooks: {} } } }, [
          { log: { description: 'Note it', message } },
        ]),
      ),
    );
  write('first');
  t.is((await cli(['flow', 'apply', path, '--publish'])).code, 0);
  t.is((await cli(['hook-secret', 'set', COMPANY, 'orders.steady', '--generate'])).code, 0);
  write('second');
  const asked: string[] = [];
  const applied = await cli(['flow', 'apply', path, '--publish'], {
    confirm: async (question) => (asked.push(question), false),
  });
  t.is(applied.code, 0, applied.err);
  t.deepEqual(asked, []);
  t.regex(applied.out, /updated — version 2, published/);
});

test('a variable no step sets is a warning with its place in the file', async (t) => {
  const path = join(dir, 'typo.flow.yaml');
  writeFileSync(
    path,
    [
      `company: ${COMPANY}`,
      'name: typo',
      'trigger:',
      '  webhook:',
      '    description: A typo',
      '    activity: orders.typo',
      'steps:',
      '  - set:',
      '      description: Pick the name',
      '      variables: { name: "${Trigger.Payload.name}" }',
      '  - log:',
      '      description: Greet',
      '      message: "Hello {{Variables.nme}}"',
      '',
    ].join('\n'),
  );
  const applied = await cli(['flow', 'apply', path, '--publish']);
  t.is(applied.code, 0, applied.err);
  t.true(
    applied.out.includes(
      `  warning: ${path}:13:16: steps[1].log.message: Variables.nme is read, but no set step sets it (did you mean Variables.name?): it is empty at run time; the set steps set name`,
    ),
    applied.out,
  );
});
