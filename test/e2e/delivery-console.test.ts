// The console's Deliveries page in a real browser: `flowhook start` on a fresh
// data directory, headless Chromium, everything found by role and accessible
// name. A partner calls once with a wrong secret and once rightly; the
// operator opens Deliveries from the company's sections, filters the refused
// calls and reads the reason, opens the accepted call (its headers with the
// credentials redacted, its execution linked), and — version 2 published in
// the meantime — replays it after a confirmation, onto version 2. The secret
// reaches neither the browser nor the processes' output. axe-core on the list,
// the details and the dialog; screenshots to test-output/console/.
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromJson } from '@bufbuild/protobuf';
import { chromium, type Browser, type Page } from 'playwright-core';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { createAdminClient, type AdminClient } from '../../bin/cli/admin-client.ts';
import { startEnvironment, startFlowhook, stopFlowhook, type StartedFlowhook } from '../support/flowhook-start.ts';
import {
  ensureConsoleBuilt,
  expectAccessible,
  inConsolePage,
  screenshot,
  withChromium,
} from '../support/console-browser.ts';
import { flow } from '../support/webhook-helpers.ts';

const UI_TIMEOUT = 30_000;
const COMPANY = 'Default';
const WRONG_SECRET = `wrong-${Math.random().toString(36).slice(2)}-secret`;
const logged = (version: string) => [{ log: { description: `Version ${version}`, message: `v${version}` } }];

interface Context {
  started: StartedFlowhook;
  browser: Browser;
  consoleUrl: string;
  webhookUrl: string;
  admin: AdminClient;
  adminToken: string;
  caller: { user: string; accessKey: string };
  secret: string;
  dataDir: string;
}

withChromium('test/e2e/delivery-console.test.ts', 'the Deliveries page', registerTests);

function registerTests(executablePath: string): void {
  let context: Context | undefined;
  const ctx = () => {
    if (!context) throw new Error('the stack did not start (see the before hook)');
    return context;
  };

  test.before(async () => {
    await ensureConsoleBuilt();
    const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-deliveries-'));
    const env = await startEnvironment(dataDir, { FLOWHOOK_LOG_LEVEL: 'info' });
    const started = await startFlowhook(env, true);
    cleanup = { started, dataDir };
    const banner = JSON.parse(started.banner.trim().split('\n').pop()!) as {
      consoleUrl: string | null;
      engineUrl: string;
      webhookUrl: string;
      firstRun: { credentialsFile: string } | null;
    };
    if (!banner.consoleUrl || !banner.firstRun) throw new Error(`no console URL or first-run credentials`);
    const firstRun = JSON.parse(readFileSync(banner.firstRun.credentialsFile, 'utf8')) as {
      serviceUser: string;
      accessKey: string;
    };
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const admin = createAdminClient({ engineUrl: banner.engineUrl, adminToken });
    const applied = await admin.applyFlow({
      flow: fromJson(FlowSchema, flow(COMPANY, 'partner-orders', { activity: 'partner.orders' }, logged('1')) as never),
      publish: true,
    });
    context = {
      started,
      browser: await chromium.launch({ executablePath, args: ['--no-sandbox'] }),
      consoleUrl: banner.consoleUrl,
      webhookUrl: banner.webhookUrl,
      admin,
      adminToken,
      caller: { user: firstRun.serviceUser, accessKey: firstRun.accessKey },
      secret: applied.secret,
      dataDir,
    };
  });
  let cleanup: { started: StartedFlowhook; dataDir: string } | undefined;
  test.after.always(async () => {
    await context?.browser.close().catch(() => undefined);
    if (!cleanup) return;
    await stopFlowhook(cleanup.started);
    rmSync(cleanup.dataDir, { recursive: true, force: true });
  });

  test.serial(
    'the operator finds the refused call and its reason, and replays the accepted one on version 2',
    async (t) => {
      t.timeout(4 * 60_000);
      t.is((await call(WRONG_SECRET, '{"order": "PO-1"}')).status, 401);
      const accepted = await call(ctx().secret, '{"order": "PO-2"}');
      t.is(accepted.status, 200);
      const executionId = accepted.headers.get('x-flowhook-execution-id')!;
      await ctx().admin.applyFlow({
        flow: fromJson(
          FlowSchema,
          flow(COMPANY, 'partner-orders', { activity: 'partner.orders' }, logged('2')) as never,
        ),
        publish: true,
      });

      const browserContext = await ctx().browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const carried: string[] = [];
      await inConsolePage(t, browserContext, async (page) => {
        page.on('response', (response) => {
          void response
            .text()
            .then((body) => {
              if (body.includes(WRONG_SECRET) || body.includes(ctx().secret) || body.includes(ctx().caller.accessKey))
                carried.push(response.url());
            })
            .catch(() => undefined);
        });
        await signIn(page);
        await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Deliveries' }).click();
        await page.getByRole('heading', { name: `Deliveries of ${COMPANY}` }).waitFor({ timeout: UI_TIMEOUT });
        await page.getByLabel('Outcome').selectOption('refused');
        const refusedRow = page.getByRole('row').filter({ hasText: 'secret_mismatch' });
        await waitFor(page, refusedRow);
        t.regex(await refusedRow.first().innerText(), /partner\.orders[\s\S]*refused[\s\S]*401/);
        t.regex(page.url(), /outcome=refused/, 'the filter is in the address');
        await expectAccessible(t, page, 'the Deliveries page, filtered');
        await screenshot(t, page, 'deliveries');

        await page.getByLabel('Outcome').selectOption('accepted');
        const acceptedRow = page.getByRole('row').filter({ hasText: executionId });
        await waitFor(page, acceptedRow);
        t.is(await acceptedRow.getByRole('link', { name: executionId }).count(), 1, 'the row links its execution');
        await acceptedRow.getByRole('rowheader').getByRole('link').click();
        await page.getByRole('heading', { name: 'Delivery', exact: true }).waitFor({ timeout: UI_TIMEOUT });
        const headers = page.getByRole('table', { name: 'Headers as received, credentials redacted' });
        t.regex(await headers.getByRole('row').filter({ hasText: 'authorization' }).innerText(), /\[redacted\]/);
        t.regex(await page.locator('pre.payload').innerText(), /PO-2/);
        await expectAccessible(t, page, 'one delivery');

        await page.getByRole('button', { name: 'Replay' }).click();
        const dialog = page.getByRole('dialog', { name: 'Replay this delivery?' });
        await dialog.waitFor({ timeout: UI_TIMEOUT });
        await expectAccessible(t, page, 'the replay confirmation');
        await screenshot(t, page, 'delivery-replay-dialog');
        await dialog.getByRole('button', { name: 'Replay' }).click();
        const status = page.getByRole('status').filter({ hasText: 'Replayed as' });
        await status.waitFor({ timeout: UI_TIMEOUT });
        t.regex(await status.innerText(), /\(v2\)/);
        await screenshot(t, page, 'delivery');
      });
      t.deepEqual(carried, [], 'no secret or key reached the browser');
      const output = ctx().started.output();
      t.false(output.includes(WRONG_SECRET), 'the wrong secret is in no log line');
      t.false(output.includes(ctx().secret), "the flow's secret is in no log line");
    },
  );

  async function signIn(page: Page): Promise<void> {
    await page.goto(ctx().consoleUrl);
    await page.getByLabel('Admin token').fill(ctx().adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Flows of ${COMPANY}` }).waitFor({ timeout: UI_TIMEOUT });
  }

  async function call(secret: string, payload: string): Promise<Response> {
    return fetch(ctx().webhookUrl.replace('localhost', '127.0.0.1'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${ctx().caller.user}:${ctx().caller.accessKey}`).toString('base64')}`,
      },
      body: `{"activity": "partner.orders", "secret": ${JSON.stringify(secret)}, "payload": ${payload}}`,
    });
  }
}

/** The list is read again as the filter changes and deliveries arrive a second after their call: reload until the row shows. */
async function waitFor(page: Page, locator: ReturnType<Page['locator']>): Promise<void> {
  const deadline = Date.now() + UI_TIMEOUT;
  while ((await locator.count()) === 0) {
    if (Date.now() > deadline) throw new Error('the row never showed');
    await new Promise((resolve) => setTimeout(resolve, 500));
    if ((await locator.count()) === 0) await page.reload();
  }
}
