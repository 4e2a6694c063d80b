// The console's Alerts page in a real browser: the test stack with the
// console on, headless Chromium (Debian's), everything found by role and
// accessible name. An admin of the company adds a calls-refused alert through
// the form (its channel chosen among the company's alert connections), sends
// a test message that reaches the local webhook sink, edits its threshold and
// deletes it; all of it is in the audit log. A viewer sees the list but no
// way to change it. axe-core on the page and its dialogs; a screenshot to
// test-output/console/.
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { createClient } from '@connectrpc/connect';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AlertCondition, AlertService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ConsoleSessions } from '../../engine/edges/console/console-sessions.ts';
import type { ConsoleRoleName } from '../../engine/domain/callers/console-roles.ts';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { kindSettingsOf } from '../../flow/connection-kinds/connection-settings.ts';
import {
  ensureConsoleBuilt,
  expectAccessible,
  inConsolePage,
  screenshot,
  withChromium,
} from '../support/console-browser.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { startRouteServer, type RouteServer } from '../support/outbound-servers.ts';
import { createTenant } from '../support/webhook-helpers.ts';

const UI_TIMEOUT = 30_000;
const COMPANY = 'Alert Co';

withChromium('test/e2e/alert-console.test.ts', 'the console Alerts page', registerTests);

function registerTests(executablePath: string): void {
  let stack: TestStack;
  let browser: Browser;
  let consoleUrl: string;
  let sink: RouteServer;

  test.before(async () => {
    await ensureConsoleBuilt();
    sink = await startRouteServer();
    sink.route('/alerts', (_request, response) => void response.writeHead(204).end());
    stack = await startStack({ env: { FLOWHOOK_CONSOLE_PORT: '0' } });
    consoleUrl = stack.engine.console!.url;
    await createTenant(stack, COMPANY);
    await stack.admin.setConnection({
      company: COMPANY,
      name: 'ops-hook',
      settings: {
        type: ConnectionType.WEBHOOK,
        baseUrl: `${sink.url}/alerts`,
        allowedHosts: [],
        ...kindSettingsOf({}),
      },
      secret: `whsec_${randomBytes(32).toString('base64')}`,
    });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  test.after.always(async () => {
    await browser?.close().catch(() => undefined);
    await stack?.close();
    await sink?.close();
  });

  async function withPage(
    t: ExecutionContext,
    person: string,
    roles: Record<string, ConsoleRoleName>,
    use: (page: Page) => Promise<void>,
  ): Promise<void> {
    t.timeout(4 * 60_000);
    const { cookieValue } = await new ConsoleSessions(stack.engine.orm, 3_600_000).open({
      person,
      via: 'oidc',
      account: 'console-oidc',
      roles,
    });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addCookies([
      { name: 'flowhook_console_session', value: cookieValue, url: consoleUrl, httpOnly: true, sameSite: 'Strict' },
    ]);
    await inConsolePage(t, context, use);
  }

  const status = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor({ timeout: UI_TIMEOUT });

  test.serial('an admin adds an alert, sends a test message, edits and deletes it; all audited', async (t) => {
    await withPage(t, 'ada@example.com', { [COMPANY]: 'admin' }, async (page) => {
      await page.goto(`${consoleUrl}/alerts/${encodeURIComponent(COMPANY)}`);
      await page.getByRole('heading', { name: `Alerts of ${COMPANY}` }).waitFor({ timeout: UI_TIMEOUT });
      await page.getByText(`No alerts in ${COMPANY} yet.`).waitFor({ timeout: UI_TIMEOUT });
      await expectAccessible(t, page, 'the empty Alerts page');

      await page.getByRole('button', { name: 'New alert' }).click();
      const form = page.getByRole('dialog', { name: 'New alert' });
      await form.getByLabel('Name').fill('wrong-secrets');
      await form.getByLabel('When').selectOption({ label: 'Calls were refused' });
      await form.getByLabel('Refusal reason').fill('secret_mismatch');
      await form.getByLabel('Threshold').fill('5');
      await form.getByLabel('Window').fill('10m');
      await form.getByLabel('Connection').selectOption('ops-hook');
      await expectAccessible(t, page, 'the New alert dialog');
      await form.getByRole('button', { name: 'Create alert' }).click();
      await form.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
      await status(page, 'Saved alert wrong-secrets.');
      const row = page.getByRole('row', { name: /wrong-secrets/ });
      t.regex(await row.innerText(), /Calls were refused \(secret_mismatch\)\s+5 in 10m\s+ops-hook\s+OK\s+never/);

      await row.getByRole('button', { name: 'Send test for wrong-secrets' }).click();
      await status(page, 'Sent a test message for wrong-secrets: Test: wrong-secrets (Alert Co)');
      t.is(sink.seen.filter((seen) => seen.path === '/alerts').length, 1, 'the sink got the test message');
      t.regex(sink.seen[0]!.body, /"type":"alert.test"/);
      await expectAccessible(t, page, 'the Alerts page with a rule');
      await screenshot(t, page, 'alerts-page');

      await row.getByRole('button', { name: 'Edit wrong-secrets' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit alert wrong-secrets' });
      t.is(await edit.getByLabel('Refusal reason').inputValue(), 'secret_mismatch');
      await edit.getByLabel('Threshold').fill('7');
      await edit.getByRole('button', { name: 'Save alert' }).click();
      await edit.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
      await page.getByRole('row', { name: /7 in 10m/ }).waitFor({ timeout: UI_TIMEOUT });

      // A refusal from the engine is shown as it says it.
      await page.getByRole('button', { name: 'New alert' }).click();
      const bad = page.getByRole('dialog', { name: 'New alert' });
      await bad.getByLabel('Name').fill('no-channel');
      await bad.getByRole('button', { name: 'Create alert' }).click();
      await bad
        .getByRole('alert')
        .filter({ hasText: '--connection: the alert channel to notify is required' })
        .waitFor({
          timeout: UI_TIMEOUT,
        });
      await bad.getByRole('button', { name: 'Cancel' }).click();

      await row.getByRole('button', { name: 'Delete wrong-secrets' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete alert wrong-secrets?' });
      await expectAccessible(t, page, 'the delete dialog');
      await confirm.getByRole('button', { name: 'Delete alert' }).click();
      await status(page, 'Deleted alert wrong-secrets.');
      await page.getByText(`No alerts in ${COMPANY} yet.`).waitFor({ timeout: UI_TIMEOUT });
    });
    const audit = createClient(
      AuditService,
      createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
    );
    const { events } = await audit.listAuditEvents({ company: COMPANY, action: 'alert' });
    t.deepEqual(events.map((event) => `${event.action} ${event.target} by ${event.person}`).reverse(), [
      'alert.set wrong-secrets by ada@example.com',
      'alert.test wrong-secrets by ada@example.com',
      'alert.set wrong-secrets by ada@example.com',
      'alert.set no-channel by ada@example.com',
      'alert.delete wrong-secrets by ada@example.com',
    ]);
  });

  test.serial('a viewer sees the alerts but cannot change them or send a test', async (t) => {
    const alerts = createClient(
      AlertService,
      createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
    );
    await alerts.setAlert({
      rule: {
        company: COMPANY,
        name: 'seen',
        condition: AlertCondition.SYNC_TIMEOUT,
        threshold: 2,
        connection: 'ops-hook',
      },
    });
    await withPage(t, 'vic@example.com', { [COMPANY]: 'viewer' }, async (page) => {
      await page.goto(`${consoleUrl}/alerts/${encodeURIComponent(COMPANY)}`);
      await page.getByRole('row', { name: /seen/ }).waitFor({ timeout: UI_TIMEOUT });
      t.is(await page.getByRole('button', { name: 'New alert' }).count(), 0);
      t.is(await page.getByRole('button', { name: /Send test/ }).count(), 0);
      await expectAccessible(t, page, 'the Alerts page of a viewer');
    });
  });
}
