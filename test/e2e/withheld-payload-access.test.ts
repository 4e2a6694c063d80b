// What a doNotLogPayload execution withholds, against people of a real identity
// provider calling the console's RPCs: viewers and editors never get the
// payload — not in the caller's answer (a Respond step that echoes it, or a
// late answer), not through a version an editor publishes and re-runs it on,
// not by typing a key's label into the list's filter; an admin of the company
// decrypts it (RevealExecutionPayload, also while it runs, with a deadline)
// and re-runs it anywhere, and the audit log records both as reveals.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import type { ConsoleAnswer, ConsolePage } from '../support/console-page.ts';
import { eventually } from '../support/eventually.ts';
import { oidcConsoleEnv, signInWithOidc } from '../support/oidc-sign-in.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let idp: TestOidcProvider;
let target: TargetServer;
let tenant: Tenant;
const COMPANY = 'Vault Co';
const OTHER = 'Other Co';
const secrets: Record<string, string> = {};
const people: Record<'vera' | 'eddie' | 'otto' | 'ada', ConsolePage> = {} as never;

const hidden = { doNotLogPayload: true };
const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 };
const echo = {
  respond: { description: 'Echo the card', statusCode: 200, body: '${ {"echo": Trigger.Payload.card} }' },
};
const failing = [{ fail: { description: 'Refunds are broken on v1', message: 'not yet' } }];
/** What an editor publishes to read a withheld payload: send it to a host of their own. */
const leaking = (url: string) => [
  {
    httpRequest: {
      description: 'Send the payload out',
      method: 'POST',
      url: `${url}/exfil`,
      body: '${Trigger.PayloadJson}',
    },
  },
];

test.before(async () => {
  const port = await findFreePort();
  const consoleUrl = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({
    clientId: 'flowhook-console',
    redirectUri: `${consoleUrl}/auth/oidc/callback`,
    people: [
      { accountId: 'vera', name: 'vera@example.com', roles: [`viewer:${COMPANY}`] },
      { accountId: 'eddie', name: 'eddie@example.com', roles: [`editor:${COMPANY}`] },
      { accountId: 'otto', name: 'otto@example.com', roles: [`editor:${COMPANY}`, `admin:${OTHER}`] },
      { accountId: 'ada', name: 'ada@example.com', roles: [`admin:${COMPANY}`] },
    ],
  });
  stack = await startStack({
    env: {
      ...oidcConsoleEnv(port, idp),
    },
  });
  // The partner of the late-answer flow answers after the caller's window closed.
  target = await startTargetServer((request) => ({ delayMs: request.path === '/slow' ? 3_000 : 0 }));
  tenant = await createTenant(stack, COMPANY);
  await createTenant(stack, OTHER);
  const concurrency = { concurrency: { key: '${Trigger.Payload.card}', limit: 5 } };
  secrets.cards = (
    await deployFlow(
      stack,
      flow(COMPANY, 'cards', { activity: 'cards.pay', ...hidden, ...sync, ...concurrency }, [echo]),
    )
  ).secret;
  secrets.late = (
    await deployFlow(
      stack,
      flow(COMPANY, 'late', { activity: 'cards.late', ...hidden, ...sync, syncTimeoutSeconds: 1 }, [
        { httpRequest: { description: 'Ask a slow partner', url: `${target.url}/slow`, maxAttempts: 1 } },
        echo,
      ]),
    )
  ).secret;
  secrets.refunds = (
    await deployFlow(stack, flow(COMPANY, 'refunds', { activity: 'refunds.run', ...hidden }, failing))
  ).secret;
  secrets.slow = (
    await deployFlow(
      stack,
      flow(COMPANY, 'slow', { activity: 'cards.slow', ...hidden }, [
        { sleep: { description: 'Wait a long time', duration: '10m' } },
      ]),
    )
  ).secret;
  for (const name of ['vera', 'eddie', 'otto', 'ada'] as const)
    people[name] = await signInWithOidc(consoleUrl, idp, name);
});
test.after.always(async () => {
  await stack?.close();
  await idp?.close();
  await target?.close();
});

const card = () => `CARD-${randomBytes(8).toString('hex')}`;
const call = (activity: string, secret: string, value: string) =>
  callWebhook(stack, { company: COMPANY, activity, secret, auth: tenant.auth, payloadText: `{"card": "${value}"}` });
const executions = (page: ConsolePage, method: string, body: unknown) =>
  page.call('flowhook.engine.v1.ExecutionService', method, body);

async function closed(executionId: string): Promise<void> {
  await stack.temporal.workflow
    .getHandle(executionId)
    .result()
    .catch(() => undefined);
}

/** The execution as a person's page shows it, once the caller's answer is known. */
async function shown(page: ConsolePage, executionId: string): Promise<ConsoleAnswer> {
  return eventually(() => executions(page, 'GetExecution', { executionId }), {
    until: (answer) => answer.json.answer !== undefined,
    what: 'the caller answer on the page',
  });
}

async function reveals(executionId: string) {
  const rows = await stack.engine.orm.em
    .getConnection()
    .execute<
      { person: string | null; account: string; method: string; outcome: string; details: Record<string, unknown> }[]
    >(
      `select person, account, method, outcome, details from audit_event where action = 'execution.reveal-payload' and target = ? order by id`,
      [executionId],
    );
  return rows.map((row) => ({ ...row }));
}

test.serial(
  "the caller's answer of a doNotLogPayload execution, and its late answer, are withheld from the page and revealed to admins",
  async (t) => {
    const value = card();
    const answered = await call('cards.pay', secrets.cards!, value);
    t.is(answered.status, 200, answered.text);
    t.true(answered.value!.body.includes(value), 'the caller itself got the echo');
    await closed(answered.executionId!);
    for (const name of ['vera', 'eddie'] as const) {
      const page = await shown(people[name], answered.executionId!);
      t.is(page.status, 200);
      t.true(page.json.payloadWithheld, name);
      t.like(page.json.answer, { outcome: 'RESPONDED', statusCode: 200 }, name);
      t.false(JSON.stringify(page.json).includes(value), `${name} sees no echo of the payload`);
    }
    const revealed = await executions(people.ada, 'RevealExecutionPayload', {
      executionId: answered.executionId,
      company: COMPANY,
    });
    t.is(revealed.status, 200, JSON.stringify(revealed.json));
    t.is(JSON.parse(revealed.json.payloadJson as string).card, value);
    t.is(JSON.parse((revealed.json.answer as { body: string }).body).echo, value, 'the admin sees the answer it got');
    t.like((await reveals(answered.executionId!))[0], { person: 'ada@example.com', outcome: 'ok' });

    const lateValue = card();
    const waited = await call('cards.late', secrets.late!, lateValue);
    t.is(waited.status, 200, waited.text);
    t.false(waited.text.includes(lateValue), 'the caller got the default response');
    await closed(waited.executionId!);
    const page = await shown(people.vera, waited.executionId!);
    t.like(page.json.answer, { outcome: 'SYNC_TIMEOUT', defaultResponse: true });
    t.truthy((page.json.answer as { lateAnswer?: unknown }).lateAnswer, 'the late answer is there');
    t.false(JSON.stringify(page.json).includes(lateValue), 'without its body');
    const lateRevealed = await executions(people.ada, 'RevealExecutionPayload', {
      executionId: waited.executionId,
      company: COMPANY,
    });
    t.is(JSON.parse((lateRevealed.json.answer as { lateAnswer: { body: string } }).lateAnswer.body).echo, lateValue);
  },
);

test.serial(
  'an editor cannot read a withheld payload through a version they publish; an admin can, and it is audited as a reveal',
  async (t) => {
    const value = card();
    const failed = await call('refunds.run', secrets.refunds!, value);
    t.is(failed.status, 200, failed.text);
    const original = failed.executionId!;
    await closed(original);
    const published = await people.eddie.flowAdmin('ApplyFlow', {
      flow: flow(COMPANY, 'refunds', { activity: 'refunds.run', ...hidden }, leaking(target.url)),
      publish: true,
    });
    t.is(published.status, 200, JSON.stringify(published.json));

    for (const name of ['eddie', 'otto'] as const) {
      const refused = await executions(people[name], 'RerunExecution', { executionId: original, company: COMPANY });
      t.is(refused.status, 403, `${name}: ${JSON.stringify(refused.json)}`);
      t.regex(
        refused.json.message as string,
        /does not log its payload.*only an admin of company "Vault Co".*Re-run it on its own version \(sameVersion/,
      );
      t.false((refused.json.message as string).includes(value));
    }
    const listed = await eventually(
      () =>
        executions(people.eddie, 'RerunExecutions', {
          company: COMPANY,
          activity: 'refunds.run',
          statuses: ['FAILED'],
          dryRun: true,
        }),
      {
        until: (answer) => answer.json.matched === 1,
        what: 'the failed refund in the list',
      },
    );
    t.true(
      (listed.json.executions as { payloadWithheld: boolean }[])[0]!.payloadWithheld,
      'the list tells the console it is withheld',
    );
    const bulk = await executions(people.eddie, 'RerunExecutions', {
      company: COMPANY,
      activity: 'refunds.run',
      statuses: ['FAILED'],
    });
    t.is(bulk.status, 200, JSON.stringify(bulk.json));
    t.deepEqual(bulk.json.started ?? [], []);
    t.like((bulk.json.skipped as { originalExecutionId: string; reason: string }[])[0], {
      originalExecutionId: original,
    });
    t.regex((bulk.json.skipped as { reason: string }[])[0]!.reason, /only an admin of company/);
    const pinned = await executions(people.eddie, 'RerunExecution', {
      executionId: original,
      company: COMPANY,
      sameVersion: true,
    });
    t.is(pinned.status, 200, JSON.stringify(pinned.json));
    t.is((pinned.json.rerun as { flowVersion: number }).flowVersion, 1, 'its own version is open to editors');
    await closed((pinned.json.rerun as { executionId: string }).executionId);
    t.false(
      target.received.some((request) => request.path === '/exfil'),
      'the published version never got the payload',
    );
    t.deepEqual(await reveals(original), [], 'nothing was revealed');

    const rerun = await executions(people.ada, 'RerunExecution', { executionId: original, company: COMPANY });
    t.is(rerun.status, 200, JSON.stringify(rerun.json));
    const started = rerun.json.rerun as { executionId: string; flowVersion: number };
    t.is(started.flowVersion, 2);
    t.is(
      JSON.parse((await target.waitFor('/exfil')).body).card,
      value,
      "the admin's re-run ran on the new version with the payload",
    );
    t.deepEqual(await reveals(original), [
      {
        person: 'ada@example.com',
        account: 'console-oidc',
        method: 'flowhook.engine.v1.ExecutionService/RerunExecution',
        outcome: 'ok',
        details: { rerunExecutionId: started.executionId, flowVersion: 2, originalFlowVersion: 1 },
      },
    ]);
  },
);

test.serial("the list's key filter finds a withheld key by the key itself, never by its label", async (t) => {
  const value = card();
  const answered = await call('cards.pay', secrets.cards!, value);
  t.is(answered.status, 200, answered.text);
  const found = await eventually(() => executions(people.vera, 'ListExecutions', { company: COMPANY, key: value }), {
    until: (answer) => ((answer.json.executions as unknown[]) ?? []).length === 1,
    what: 'the execution found by its key',
  });
  const [summary] = found.json.executions as { executionId: string; keys: string[] }[];
  t.is(summary!.executionId, answered.executionId!);
  const [label] = summary!.keys;
  t.regex(label!, /^#[A-Za-z0-9_-]{16}$/, 'the key is shown as its label');
  for (const typed of [label!, `${label}'`, `${label}"`, value.slice(0, -1)]) {
    const listed = await executions(people.vera, 'ListExecutions', { company: COMPANY, key: typed });
    t.is(listed.status, 200);
    t.deepEqual(listed.json.executions ?? [], [], `"${typed}" matches nothing`);
  }
});

test.serial(
  'an admin decrypts the payload of a running execution at once, without waiting for it to end',
  async (t) => {
    const value = card();
    const running = await call('cards.slow', secrets.slow!, value);
    t.is(running.status, 200, running.text);
    const asked = Date.now();
    const revealed = await executions(people.ada, 'RevealExecutionPayload', {
      executionId: running.executionId,
      company: COMPANY,
    });
    t.is(revealed.status, 200, JSON.stringify(revealed.json));
    t.true(Date.now() - asked < 10_000, `answered in ${Date.now() - asked} ms`);
    t.is(JSON.parse(revealed.json.payloadJson as string).card, value);
    t.is(revealed.json.failureReason, undefined, 'no failure: it still runs');
  },
);

// Last: it stops the worker.
test.serial('with no worker to answer, a reveal ends at its deadline with UNAVAILABLE', async (t) => {
  const running = await call('cards.slow', secrets.slow!, card());
  t.is(running.status, 200, running.text);
  await stack.worker!.close();
  const asked = Date.now();
  const revealed = await executions(people.ada, 'RevealExecutionPayload', {
    executionId: running.executionId,
    company: COMPANY,
  });
  t.is(revealed.status, 503, JSON.stringify(revealed.json));
  t.like(revealed.json, { code: 'unavailable' });
  t.regex(revealed.json.message as string, /need a running worker to answer, and none did within 15 s/);
  t.true(Date.now() - asked < 30_000, `answered in ${Date.now() - asked} ms`);
});
