// The console's operations pages in a real browser (issue 29): `flowhook
// start` on a fresh data directory, headless Chromium (Debian's), everything
// found by role and accessible name. The test the issue's "Done when" names
// walks an operator's morning: a partner's calls fail (the flow's httpRequest
// step uses connection partner-api, whose key is wrong, against a loopback
// server that demands the right one) → the overview shows the failures → the
// execution page names the step and the connection → the connection's key is
// replaced in the console → the failed executions are re-run in bulk (a dry
// run's count first, confirmed by number) and succeed. Besides: a connection's
// secret never comes back to the browser; one execution re-run from its page;
// the list's filter in the address; a doNotLogPayload payload withheld until an
// admin decrypts it; axe-core on every page and dialog; screenshots to
// test-output/console/ (the handbook's come from them).
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, fromJson } from '@bufbuild/protobuf';
import { createClient, type Client } from '@connectrpc/connect';
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  ConnectionAdminService,
  ConnectionSettingsSchema,
  ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient, createAdminTransport } from '../../bin/cli/admin-client.ts';
import { startEnvironment, startFlowhook, stopFlowhook, type StartedFlowhook } from '../support/flowhook-start.ts';
import {
  ensureConsoleBuilt,
  expectAccessible,
  inConsolePage,
  screenshot,
  withChromium,
} from '../support/console-browser.ts';
import { startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { flow } from '../support/webhook-helpers.ts';

// Generous: the suite shares two cores; these bound waits, they assert nothing about speed.
const UI_TIMEOUT = 30_000;
const COMPANY = 'Default';
const RIGHT_KEY = `right-${Math.random().toString(36).slice(2)}-key`;
const WRONG_KEY = `wrong-${Math.random().toString(36).slice(2)}-key`;
const FAILED_CALLS = 3;

interface Context {
  started: StartedFlowhook;
  browser: Browser;
  consoleUrl: string;
  webhookUrl: string;
  partner: RouteServer;
  caller: { user: string; accessKey: string };
  secrets: Map<string, string>;
  audit: Client<typeof AuditService>;
  executions: Client<typeof ExecutionService>;
  dataDir: string;
}

withChromium('test/e2e/console-operations.test.ts', 'the console operations pages', registerTests);

function registerTests(executablePath: string): void {
  let context: Context | undefined;
  const ctx = () => {
    if (!context) throw new Error('the stack did not start (see the before hook)');
    return context;
  };

  test.before(async () => {
    await ensureConsoleBuilt();
    // The partner's API: answers orders with 201 only when the right key comes with them.
    const partner = await startRouteServer();
    partner.route('/api/orders', (request, response) => {
      if (request.headers['x-api-key'] !== RIGHT_KEY)
        return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid API key"}');
      response
        .writeHead(201, { 'content-type': 'application/json' })
        .end(`{"accepted":true,"order":${JSON.stringify(request.body)}}`);
    });
    partner.route(
      '/slow',
      (_request, response) =>
        void setTimeout(
          () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"reserved":true}'),
          3_000,
        ),
    );
    const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-console-ops-'));
    const env = await startEnvironment(dataDir, {
      FLOWHOOK_LOG_LEVEL: 'warn',
      FLOWHOOK_EGRESS_ALLOW: `127.0.0.1:${partner.port}`,
    });
    const started = await startFlowhook(env, true);
    // Stopped by the after hook even when the rest of this setup fails.
    cleanup = { started, partner, dataDir };
    const banner = JSON.parse(started.banner.trim().split('\n').pop()!) as {
      consoleUrl: string | null;
      engineUrl: string;
      webhookUrl: string;
      firstRun: { credentialsFile: string } | null;
    };
    if (!banner.consoleUrl || !banner.firstRun)
      throw new Error(`start printed no console URL or first-run credentials: ${started.banner}`);
    const firstRun = JSON.parse(readFileSync(banner.firstRun.credentialsFile, 'utf8')) as {
      serviceUser: string;
      accessKey: string;
    };
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const admin = createAdminClient({ engineUrl: banner.engineUrl, adminToken });
    const connections = createClient(
      ConnectionAdminService,
      createAdminTransport({ engineUrl: banner.engineUrl, adminToken }),
    );
    // A second company, so the overview lists every company's failures.
    await admin.createCompany({ name: 'Globex' });
    // Someone typed the partner's key wrong when the connection was set up.
    await connections.setConnection({
      company: COMPANY,
      name: 'partner-api',
      settings: create(ConnectionSettingsSchema, { type: ConnectionType.API_KEY, baseUrl: `${partner.url}/api` }),
      secret: WRONG_KEY,
    });
    const secrets = new Map<string, string>();
    const orders = flow(
      COMPANY,
      'partner-orders',
      { activity: 'partner.orders', responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 20 },
      [
        {
          name: 'partner',
          httpRequest: {
            description: 'Send the order to the partner',
            method: 'POST',
            url: '/orders',
            body: '${ $string(Trigger.Payload) }',
            maxAttempts: 1,
          },
        },
        {
          if: {
            description: 'Did the partner refuse it?',
            condition: '${ Steps.partner.status >= 400 }',
            then: [
              {
                fail: {
                  description: 'Stop: the partner refused the order',
                  message: 'the partner answered HTTP ${ Steps.partner.status }',
                },
              },
            ],
          },
        },
        { respond: { description: 'Confirm the order', statusCode: 200, body: '${ $string(Steps.partner.json) }' } },
      ],
    );
    (orders.steps![0] as { httpRequest: Record<string, unknown> }).httpRequest.connection = 'partner-api';
    secrets.set(
      'partner.orders',
      (await admin.applyFlow({ flow: fromJson(FlowSchema, orders as never), publish: true })).secret,
    );
    // Flow control: one execution at a time per invoice.
    const invoices = flow(
      COMPANY,
      'invoice-events',
      { activity: 'invoice.events', concurrency: { key: '${Trigger.Payload.invoice}' } },
      [{ log: { description: 'Apply the event', message: 'event for {{Trigger.Payload.invoice}}' } }],
    );
    secrets.set(
      'invoice.events',
      (await admin.applyFlow({ flow: fromJson(FlowSchema, invoices as never), publish: true })).secret,
    );
    const quiet = flow(COMPANY, 'quiet-orders', { activity: 'quiet.orders', doNotLogPayload: true }, [
      {
        if: {
          description: 'Is the order complete?',
          condition: '${ Trigger.Payload.complete = false }',
          then: [{ fail: { description: 'Refuse incomplete orders', message: 'incomplete' } }],
        },
      },
    ]);
    secrets.set(
      'quiet.orders',
      (await admin.applyFlow({ flow: fromJson(FlowSchema, quiet as never), publish: true })).secret,
    );
    const slow = flow(
      COMPANY,
      'slow-orders',
      { activity: 'slow.orders', responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 1 },
      [
        // A slow answer, not a sleep: a deferral before a Respond step fails a sync call instead.
        { httpRequest: { description: 'Ask the warehouse', url: `${partner.url}/slow`, maxAttempts: 1 } },
        {
          respond: {
            description: 'Confirm late',
            statusCode: 201,
            contentType: 'text/plain',
            body: 'reserved ${ Trigger.Payload.orderId }',
          },
        },
      ],
    );
    secrets.set(
      'slow.orders',
      (await admin.applyFlow({ flow: fromJson(FlowSchema, slow as never), publish: true })).secret,
    );
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    const audit = createClient(AuditService, createAdminTransport({ engineUrl: banner.engineUrl, adminToken }));
    context = {
      started,
      browser,
      consoleUrl: banner.consoleUrl,
      webhookUrl: banner.webhookUrl,
      partner,
      caller: { user: firstRun.serviceUser, accessKey: firstRun.accessKey },
      secrets,
      audit,
      executions: createClient(ExecutionService, createAdminTransport({ engineUrl: banner.engineUrl, adminToken })),
      dataDir,
    };
    sessionToken = adminToken;
  });
  let cleanup: { started: StartedFlowhook; partner: RouteServer; dataDir: string } | undefined;
  test.after.always(async () => {
    await context?.browser.close().catch(() => undefined);
    if (!cleanup) return;
    await stopFlowhook(cleanup.started);
    await cleanup.partner.close();
    rmSync(cleanup.dataDir, { recursive: true, force: true });
  });

  test.serial(
    "an operator's morning: the partner's calls fail, the overview shows it, the execution names the connection, its key is fixed, a bulk re-run succeeds",
    async (t) => {
      // The partner calls, and every call fails: the flow's step is refused with HTTP 401.
      for (let n = 1; n <= FAILED_CALLS; n++) {
        const answer = await call('partner.orders', `{"orderId": "PO-${n}", "amount": ${n * 100}}`);
        t.is(answer.status, 500, `call ${n} fails for the partner`);
      }
      t.is(ctx().partner.seen.length, FAILED_CALLS);
      t.true(ctx().partner.seen.every((request) => request.headers['x-api-key'] === WRONG_KEY));

      await withPage(t, async (page) => {
        await signIn(page);
        // The overview: the failures are on it, and each figure leads to the executions behind it.
        await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
        await page.getByRole('heading', { name: `Overview of ${COMPANY}` }).waitFor({ timeout: UI_TIMEOUT });
        const failedExecutions = page.getByRole('link', { name: `Failed executions: ${FAILED_CALLS}, show them` });
        await failedExecutions.waitFor({ timeout: UI_TIMEOUT });
        await page
          .getByRole('link', { name: `Failed calls: ${FAILED_CALLS}, show them` })
          .waitFor({ timeout: UI_TIMEOUT });
        t.regex(
          await page.getByRole('table', { name: 'Calls in the last hour by outcome' }).innerText(),
          new RegExp(`Failed \\(5xx\\)\\s+${FAILED_CALLS}`),
        );
        t.notRegex(
          await page.getByRole('listitem').filter({ hasText: 'Answer time p95' }).innerText(),
          /—/,
          'an answer time is known',
        );
        const companies = page.getByRole('table', { name: 'Every company you see, in the last hour' });
        await companies
          .getByRole('link', { name: `${COMPANY}: ${FAILED_CALLS} failed executions` })
          .waitFor({ timeout: UI_TIMEOUT });
        await companies.getByRole('link', { name: 'Globex: 0 failed executions' }).waitFor({ timeout: UI_TIMEOUT });
        await expectAccessible(t, page, 'the overview');
        await screenshot(t, page, 'overview');

        // The list behind the figure: the company's failed executions, the filter in the address.
        await failedExecutions.click();
        await page.getByRole('heading', { name: `Executions of ${COMPANY}` }).waitFor();
        t.regex(page.url(), /\/executions\?company=Default&since=[^&]+&status=FAILED%2CTIMED_OUT$/);
        const rows = page.getByRole('table').getByRole('row');
        await waitForCount(rows, FAILED_CALLS + 1);
        t.true(await page.getByRole('checkbox', { name: 'Failed' }).isChecked());
        t.false(await page.getByRole('checkbox', { name: 'Completed' }).isChecked());
        await expectAccessible(t, page, 'the execution list');
        await screenshot(t, page, 'executions-failed');
        const listUrl = page.url();

        // One of them: the page names the step that failed, and the connection the partner refused.
        await rows.nth(1).getByRole('link').first().click();
        const why = page.getByRole('region', { name: 'Why it failed' });
        // The connection is read from the flow version the execution ran, a moment after the execution.
        await why.getByText(/with connection partner-api/).waitFor({ timeout: UI_TIMEOUT });
        const reason = await why.innerText();
        t.regex(reason, /Step Stop: the partner refused the order \(steps\[1\]\.if\.then\[0\], fail\) failed/);
        t.regex(reason, /the partner answered HTTP 401/);
        t.regex(
          reason,
          /Step Send the order to the partner \(steps\[0\]\) was answered HTTP 401 with connection partner-api: the connection's credentials were refused/,
        );
        const timeline = page.getByRole('region', { name: 'Steps' });
        t.regex(
          await timeline.innerText(),
          /When a webhook is received[\s\S]*Send the order to the partner[\s\S]*Did the partner refuse it\?[\s\S]*Stop: the partner refused the order/,
        );
        await timeline.getByText('Output of partner').click();
        t.regex(await timeline.innerText(), /"status": 401/);
        const answer = page.getByRole('region', { name: "The caller's answer" });
        t.regex(await answer.innerText(), /The flow failed before it responded[\s\S]*Status\s+500/);
        t.regex(
          await page.getByRole('region', { name: 'Payload' }).getByLabel('Payload text').innerText(),
          /^\{"orderId": "PO-\d", "amount": \d00\}$/,
          'the payload as exact text',
        );
        t.regex(
          (await page.getByRole('link', { name: 'Open in the Temporal UI' }).getAttribute('href'))!,
          /^http:\/\/(localhost|127\.0\.0\.1):\d+\/namespaces\/default\/workflows\/partner\.orders%3A/,
        );
        await expectAccessible(t, page, 'a failed execution');
        await screenshot(t, page, 'execution-failed');

        // The connection: its key is replaced, typed into a field that never shows the old one.
        const secretsSeen = watchForSecrets(page);
        await why.getByRole('link', { name: 'Check connection partner-api' }).first().click();
        await page.getByRole('heading', { name: `Connections of ${COMPANY}` }).waitFor();
        const row = page.getByRole('row', { name: /partner-api/ });
        t.is(await row.getAttribute('aria-current'), 'true', 'the connection the execution named is marked');
        t.regex(await row.innerText(), /api-key[\s\S]*\/api[\s\S]*partner-orders/);
        await row.getByRole('button', { name: 'Replace partner-api' }).click();
        const dialog = page.getByRole('dialog', { name: 'Replace connection partner-api' });
        await dialog.waitFor();
        const key = dialog.getByLabel('API key');
        t.is(await key.inputValue(), '', 'the stored key is never put into the form');
        t.is(await key.getAttribute('type'), 'password');
        await key.fill(RIGHT_KEY);
        await expectAccessible(t, page, 'the connection dialog');
        await screenshot(t, page, 'connection-replace');
        await dialog.getByRole('button', { name: 'Replace connection' }).click();
        await page
          .getByRole('status')
          .getByText('Saved connection partner-api (version 2).')
          .waitFor({ timeout: UI_TIMEOUT });
        await page.reload();
        await page.getByRole('row', { name: /partner-api/ }).waitFor({ timeout: UI_TIMEOUT });
        t.false((await page.content()).includes(RIGHT_KEY), 'the key is nowhere on the page');
        t.deepEqual(secretsSeen(), [], 'no answer the browser got carries a key');

        // Back to the failed executions: re-run them all, after a dry run names the number.
        await page.goto(listUrl);
        await waitForCount(rows, FAILED_CALLS + 1);
        await page.getByRole('button', { name: 'Re-run matching executions…' }).click();
        const rerun = page.getByRole('dialog', { name: 'Re-run matching executions' });
        await rerun
          .getByText(`${FAILED_CALLS} closed executions match the filter (dry run: nothing started yet).`)
          .waitFor({ timeout: UI_TIMEOUT });
        t.is(ctx().partner.seen.length, FAILED_CALLS, 'the dry run started nothing');
        await expectAccessible(t, page, 'the bulk re-run dialog');
        await screenshot(t, page, 'bulk-rerun-confirm');
        await rerun.getByRole('button', { name: `Re-run ${FAILED_CALLS} executions` }).click();
        const progress = page.getByRole('dialog', { name: `Re-running ${FAILED_CALLS} executions` });
        await progress.getByText(`${FAILED_CALLS} of ${FAILED_CALLS} started.`).waitFor({ timeout: UI_TIMEOUT });
        await screenshot(t, page, 'bulk-rerun-done');
        await progress.getByRole('button', { name: 'Close' }).click();

        // The re-runs succeed: the partner accepted each order with the right key.
        await page.goto(`${ctx().consoleUrl}/executions?company=${COMPANY}&flow=partner-orders&status=COMPLETED`);
        await waitForCount(rows, FAILED_CALLS + 1);
        t.regex(await page.getByRole('table').innerText(), /partner\.orders:rerun-/);
        await screenshot(t, page, 'executions-rerun-completed');
      });
      const accepted = ctx().partner.seen.slice(FAILED_CALLS);
      t.is(accepted.length, FAILED_CALLS);
      t.true(accepted.every((request) => request.headers['x-api-key'] === RIGHT_KEY));
      // Each console action is in the audit log with the person (the admin token's sign-in), never a key.
      const audit = await ctx().audit.listAuditEvents({ company: COMPANY, limit: 500 });
      const byConsole = audit.events.filter((event) => event.person !== '');
      t.true(
        byConsole.some(
          (event) => event.action === 'connection.set' && event.target === 'partner-api' && event.outcome === 'ok',
        ),
      );
      t.is(
        byConsole.filter((event) => event.action === 'execution.rerun' && event.outcome === 'ok').length,
        FAILED_CALLS,
      );
      t.true(
        byConsole.some(
          (event) => event.action === 'execution.rerun-many' && event.detailsJson.includes('"dryRun":true'),
        ),
      );
      const recorded = JSON.stringify(audit.events, (_key, value: unknown) =>
        typeof value === 'bigint' ? String(value) : value,
      );
      t.false(recorded.includes(RIGHT_KEY) || recorded.includes(WRONG_KEY));
      t.deepEqual(
        // The step sends the payload as $string writes it: the same order, compact.
        accepted.map((request) => request.body).sort(),
        [1, 2, 3].map((n) => `{"orderId":"PO-${n}","amount":${n * 100}}`),
      );
    },
  );

  test.serial(
    'a connection created in the console: its secret is never read back, and deleting it names the flows that use it',
    async (t) => {
      await withPage(t, async (page) => {
        const secretsSeen = watchForSecrets(page, ['typed-secret-5f2c9']);
        await page.goto(`${ctx().consoleUrl}/connections/${COMPANY}`);
        await page.getByRole('button', { name: 'New connection' }).click();
        const dialog = page.getByRole('dialog', { name: 'New connection' });
        await dialog.getByLabel('Name').fill('billing');
        await dialog.getByLabel('Type').selectOption({ label: 'basic' });
        await dialog.getByLabel('Username').fill('shop');
        await dialog.getByLabel('Password').fill('typed-secret-5f2c9');
        // No base URL: the engine refuses, and says so at the field.
        await dialog.getByRole('button', { name: 'Create connection' }).click();
        await dialog
          .getByText(/Required, so the secret can only go where it is meant to/)
          .waitFor({ timeout: UI_TIMEOUT });
        t.is(await dialog.getByLabel('Base URL').getAttribute('aria-invalid'), 'true');
        await dialog.getByLabel('Base URL').fill('https://billing.example.com/api');
        await dialog.getByRole('button', { name: 'Create connection' }).click();
        await page
          .getByRole('status')
          .getByText('Saved connection billing (version 1).')
          .waitFor({ timeout: UI_TIMEOUT });
        await page
          .getByRole('row', { name: /billing/ })
          .getByRole('button', { name: 'Replace billing' })
          .click();
        t.is(await page.getByRole('dialog').getByLabel('Password').inputValue(), '');
        t.is(
          await page.getByRole('dialog').getByLabel('Username').inputValue(),
          'shop',
          'settings other than the secret come back',
        );
        await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
        t.false((await page.content()).includes('typed-secret-5f2c9'));
        t.deepEqual(secretsSeen(), []);

        // Deleting the connection a published flow uses: the dialog names the flow and asks twice.
        await page.getByRole('button', { name: 'Delete partner-api' }).click();
        const remove = page.getByRole('dialog', { name: 'Delete connection partner-api?' });
        t.regex(await remove.innerText(), /1 published flow uses it[\s\S]*partner-orders/);
        t.true(await remove.getByRole('button', { name: 'Delete connection' }).isDisabled());
        await expectAccessible(t, page, 'the delete dialog');
        await screenshot(t, page, 'connection-delete');
        await remove.getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('button', { name: 'Delete billing' }).click();
        await page
          .getByRole('dialog', { name: 'Delete connection billing?' })
          .getByRole('button', { name: 'Delete connection' })
          .click();
        await page.getByRole('status').getByText('Deleted connection billing.').waitFor({ timeout: UI_TIMEOUT });
        await expectAccessible(t, page, 'the connections');
        await screenshot(t, page, 'connections');
      });
    },
  );

  test.serial(
    'one failed execution re-run from its page; a doNotLogPayload payload is withheld until an admin decrypts it',
    async (t) => {
      const answer = await call('quiet.orders', '{"orderId": "Q-1", "complete": false}');
      t.is(answer.status, 200, 'Instant return answers at once');
      await withPage(t, async (page) => {
        await page.goto(`${ctx().consoleUrl}/executions?company=${COMPANY}&flow=quiet-orders&status=FAILED`);
        const rows = page.getByRole('table').getByRole('row');
        await waitForCount(rows, 2);
        await rows.nth(1).getByRole('link').first().click();
        const payload = page.getByRole('region', { name: 'Payload' });
        await payload.getByText('Withheld: the flow does not log its payload').waitFor({ timeout: UI_TIMEOUT });
        t.false((await page.content()).includes('Q-1'), 'the payload is not on the page');
        await payload.getByRole('button', { name: 'Decrypt the payload' }).click();
        t.is(await payload.getByLabel('Payload text').innerText(), '{"orderId": "Q-1", "complete": false}');
        await payload.getByText('incomplete').waitFor();
        const original = decodeURIComponent(page.url().split('/executions/')[1]!);
        await page.getByRole('button', { name: 'Re-run' }).click();
        const started = page.getByRole('status').getByRole('link', { name: /quiet\.orders:rerun-/ });
        await started.waitFor({ timeout: UI_TIMEOUT });
        await started.click();
        // The page of an execution that has just started or ended: its queries wait for a worker to replay
        // it, and on a loaded machine Temporal may first try the worker's sticky queue until that times out
        // (each query is bounded, QUERY_DEADLINE_MS in engine/edges/services/execution-service.ts, and the page asks again).
        await page.getByRole('link', { name: original }).waitFor({ timeout: 3 * UI_TIMEOUT });
        t.regex(
          await page.locator('.facts').first().innerText(),
          new RegExp(`Re-run of\\s+${original.replace(/[.]/g, '\\.')}`),
        );
        await expectAccessible(t, page, 'a re-run');
        // A re-run names its company, and must be that company's: another company's execution reads as unknown.
        const other = await t.throwsAsync(
          ctx().executions.rerunExecution({ executionId: original, company: 'Globex' }),
        );
        t.regex(other!.message, /does not exist/);
      });
    },
  );

  test.serial(
    "a late answer: the caller got the default response, the Respond step's answer came after the window",
    async (t) => {
      const answer = await call('slow.orders', '{"orderId": "S-1"}');
      t.is(answer.status, 200, 'the sync window timed out: the default response');
      await withPage(t, async (page) => {
        await page.goto(`${ctx().consoleUrl}/executions?company=${COMPANY}&flow=slow-orders`);
        const rows = page.getByRole('table').getByRole('row');
        await waitForCount(rows, 2);
        await rows.nth(1).getByRole('link').first().click();
        // The page follows the execution while it runs, until the Respond step has answered.
        const caller = page.getByRole('region', { name: "The caller's answer" });
        await caller.getByRole('heading', { name: 'Late answer' }).waitFor({ timeout: UI_TIMEOUT });
        const text = await caller.innerText();
        t.regex(text, /sync window timed out: it got the default response[\s\S]*Status\s+200/);
        t.regex(text, /Late answer[\s\S]*Status\s+201[\s\S]*text\/plain[\s\S]*reserved S-1/);
        await expectAccessible(t, page, 'an execution with a late answer');
        await screenshot(t, page, 'execution-late-answer');
      });
    },
  );

  test.serial(
    "a flow-control key: the execution page names it and how long the execution waited, and leads to the key's executions",
    async (t) => {
      for (const invoice of ['INV-7', 'INV-8', 'INV-7'])
        t.is((await call('invoice.events', JSON.stringify({ invoice }))).status, 200);
      await withPage(t, async (page) => {
        await page.goto(`${ctx().consoleUrl}/executions?company=${COMPANY}&flow=invoice-events&key=INV-7`);
        t.is(await page.getByLabel('Flow control key').inputValue(), 'INV-7');
        const rows = page.getByRole('table').getByRole('row');
        // The header row and INV-7's two executions, not INV-8's.
        await waitForCount(rows, 3);
        await rows.nth(1).getByRole('link').first().click();
        const facts = page.locator('.facts').first();
        await facts.getByText(/waited .* before its first step/).waitFor({ timeout: 3 * UI_TIMEOUT });
        await screenshot(t, page, 'execution-keys');
        await facts.getByRole('link', { name: 'INV-7' }).click();
        await waitForCount(page.getByRole('table').getByRole('row'), 3);
        t.regex(page.url(), /[?&]key=INV-7(&|$)/);
        await expectAccessible(t, page, 'the executions of one flow-control key');
      });
    },
  );

  /** The admin token, signed in once; later pages start from the session cookie. */
  let sessionToken = '';
  let sessionCookies: Awaited<ReturnType<BrowserContext['cookies']>> = [];

  async function signIn(page: Page): Promise<void> {
    await page.goto(ctx().consoleUrl);
    await page.getByLabel('Admin token').fill(sessionToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Flows of ${COMPANY}` }).waitFor({ timeout: UI_TIMEOUT });
    sessionCookies = await page.context().cookies();
  }

  async function withPage(t: ExecutionContext, use: (page: Page) => Promise<void>): Promise<void> {
    t.timeout(4 * 60_000);
    const browserContext = await ctx().browser.newContext({ viewport: { width: 1400, height: 1000 } });
    if (sessionCookies.length > 0) await browserContext.addCookies(sessionCookies);
    try {
      await inConsolePage(t, browserContext, use);
    } catch (error) {
      t.log(`flowhook start's output, the end:\n${ctx().started.output().slice(-4000)}`);
      throw error;
    }
  }

  /** Every answer the page gets from the engine, searched for the keys: returns the URLs that carried one. */
  function watchForSecrets(page: Page, extra: string[] = []): () => string[] {
    const carried: string[] = [];
    page.on('response', (response) => {
      void response
        .text()
        .then((body) => {
          if ([RIGHT_KEY, WRONG_KEY, ...extra].some((secret) => body.includes(secret))) carried.push(response.url());
        })
        .catch(() => undefined);
    });
    return () => carried;
  }

  async function call(activity: string, payload: string): Promise<{ status: number; body: string }> {
    const response = await fetch(ctx().webhookUrl.replace('localhost', '127.0.0.1'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${ctx().caller.user}:${ctx().caller.accessKey}`).toString('base64')}`,
      },
      body: `{"activity": ${JSON.stringify(activity)}, "secret": ${JSON.stringify(ctx().secrets.get(activity))}, "payload": ${payload}}`,
    });
    return { status: response.status, body: await response.text() };
  }
}

/** Waits until a locator finds exactly `count` elements (the list reads itself again every few seconds). */
async function waitForCount(locator: ReturnType<Page['locator']>, count: number): Promise<void> {
  const deadline = Date.now() + UI_TIMEOUT;
  while ((await locator.count()) !== count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} elements, found ${await locator.count()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
