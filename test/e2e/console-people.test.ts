// The console's admin pages in a real browser (issue 29, people and the audit
// log): the engine, worker and facade of the test stack with the console on,
// headless Chromium (Debian's), everything found by role and accessible name.
// A person signed in as admin in every company (a console session, as the
// identity provider would give) creates a service user — its access key shown
// once, working for a webhook call; a new key makes the old one fail — gives
// and takes permission sets, disables and deletes it; registers an OAuth
// application and walks it through enable, consent, a permission set,
// disable and revoked consent; creates a service account whose token signs
// in, rotates it (the old one stops), disables and deletes it; sets hook
// secrets that are never shown back; edits the company's egress list (a bad
// entry refused, nothing changed); and finds all of it in the audit log
// filtered by person and action. A viewer reads people but cannot change
// them. axe-core on every page and dialog; the main forms with the keyboard;
// screenshots to test-output/console/.
import test, { type ExecutionContext } from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { chromium, type Browser, type Page } from 'playwright-core';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { ConsoleSessions } from '../../engine/edges/console/console-sessions.ts';
import type { ConsoleRoleName } from '../../engine/domain/callers/console-roles.ts';
import {
  ensureConsoleBuilt,
  expectAccessible,
  inConsolePage,
  isFocused,
  screenshot,
  tabTo,
  withChromium,
} from '../support/console-browser.ts';
import { ConsolePage } from '../support/console-page.ts';
import { eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, flow } from '../support/webhook-helpers.ts';

const UI_TIMEOUT = 30_000;
const COMPANY = 'People Co';
const OTHER = 'Other Co';
const ACTIVITY = 'people.greet';
const ADMIN = 'dana@example.com';
const VIEWER = 'vic@example.com';
const pad = (value: number) => String(value).padStart(2, '0');

withChromium('test/e2e/console-people.test.ts', 'the console admin pages', registerTests);

function registerTests(executablePath: string): void {
  let stack: TestStack;
  let browser: Browser;
  let consoleUrl: string;
  let flowSecret: string;

  test.before(async () => {
    await ensureConsoleBuilt();
    stack = await startStack({ env: { FLOWHOOK_CONSOLE_PORT: '0' } });
    consoleUrl = stack.engine.console!.url;
    await createTenant(stack, COMPANY);
    await createTenant(stack, OTHER);
    const applied = await stack.admin.applyFlow({
      flow: fromJson(
        FlowSchema,
        flow(COMPANY, 'greeter', { activity: ACTIVITY }, [
          { respond: { description: 'Greet', statusCode: 200, contentType: 'text/plain', body: 'hi' } },
        ]) as never,
      ),
      publish: true,
    });
    flowSecret = applied.secret;
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  test.after.always(async () => {
    await browser?.close().catch(() => undefined);
    await stack?.close();
  });

  /** A console session for a person with these roles, as a sign-in with the identity provider makes one. */
  async function sessionOf(person: string, roles: Record<string, ConsoleRoleName>): Promise<string> {
    const { cookieValue } = await new ConsoleSessions(stack.engine.orm, 3_600_000).open({
      person,
      via: 'oidc',
      account: 'console-oidc',
      roles,
    });
    return cookieValue;
  }

  const sessions = new Map<string, string>();
  async function withPage(
    t: ExecutionContext,
    person: string,
    roles: Record<string, ConsoleRoleName>,
    use: (page: Page) => Promise<void>,
  ): Promise<void> {
    t.timeout(4 * 60_000);
    if (!sessions.has(person)) sessions.set(person, await sessionOf(person, roles));
    const context = await browser.newContext({
      viewport: { width: 1400, height: 1000 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await context.addCookies([
      {
        name: 'flowhook_console_session',
        value: sessions.get(person)!,
        url: consoleUrl,
        httpOnly: true,
        sameSite: 'Strict',
      },
    ]);
    await inConsolePage(t, context, use);
  }

  /** The person's session as its page calls the RPCs (for what a page never shows, and for refusals). */
  async function rpcAs(person: string): Promise<ConsolePage> {
    const page = new ConsolePage(consoleUrl);
    page.cookie = `flowhook_console_session=${sessions.get(person)}`;
    page.csrf = (await page.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.csrfToken as string;
    return page;
  }

  const asAdmin = (t: ExecutionContext, use: (page: Page) => Promise<void>) => withPage(t, ADMIN, { '': 'admin' }, use);

  const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;
  const callAs = async (user: string, key: string) =>
    (await callWebhook(stack, { company: COMPANY, activity: ACTIVITY, secret: flowSecret, auth: basic(user, key) }))
      .status;
  const statusBecomes = (probe: () => Promise<number>, status: number, what: string) =>
    eventually(probe, { until: (value) => value === status, what });

  /** The value of the open shown-once dialog, after checking it, its Copy button and its Done. */
  async function takeShownOnce(t: ExecutionContext, page: Page, title: string, shot?: string): Promise<string> {
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor({ timeout: UI_TIMEOUT });
    const value = (await dialog.locator('.secret-value code').innerText()).trim();
    t.true(value.length >= 16, `${title}: a real value`);
    await dialog.getByText('it is shown this once and never again').waitFor();
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByText('Copied to the clipboard.').waitFor();
    t.is(await page.evaluate('navigator.clipboard.readText()'), value, 'Copy puts it on the clipboard');
    await expectAccessible(t, page, `the ${title} dialog`);
    if (shot) await screenshot(t, page, shot);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.false((await page.content()).includes(value), `${title}: gone from the page once the dialog is closed`);
    return value;
  }

  async function confirmIn(page: Page, title: string, action: string): Promise<void> {
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor({ timeout: UI_TIMEOUT });
    await dialog.getByRole('button', { name: action }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  const status = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor({ timeout: UI_TIMEOUT });

  test.serial(
    'a service user: the access key is shown once and works; a new key stops the old one; grants; disable; delete',
    async (t) => {
      await asAdmin(t, async (page) => {
        await page.goto(`${consoleUrl}/people`);
        await page.getByRole('heading', { name: 'People and machines' }).waitFor({ timeout: UI_TIMEOUT });
        const form = page.getByRole('form', { name: 'New service user' });
        await form.getByLabel('Name').fill('shop-feed');
        await form.getByLabel('Company').selectOption(COMPANY);
        t.is(await form.getByLabel('Permission set').inputValue(), 'FLOW ALL');
        await expectAccessible(t, page, 'the people page');
        await form.getByRole('button', { name: 'Create service user' }).click();
        const firstKey = await takeShownOnce(t, page, 'Access key', 'people-access-key');
        await status(page, `Service user shop-feed created with FLOW ALL in ${COMPANY}.`);
        await page.reload();
        const row = page.getByRole('row', { name: /shop-feed/ });
        await row.waitFor({ timeout: UI_TIMEOUT });
        t.regex(await row.innerText(), new RegExp(`Enabled[\\s\\S]*FLOW ALL in ${COMPANY}[\\s\\S]*no expiry`));
        t.false((await page.content()).includes(firstKey), 'after a reload the key is nowhere on the page');
        t.is(await callAs('shop-feed', firstKey), 200, 'the key from the dialog works for a call');

        await row.getByRole('button', { name: 'New key' }).click();
        await expectAccessible(t, page, 'the new key confirmation');
        await confirmIn(page, 'A new access key?', 'New key');
        const secondKey = await takeShownOnce(t, page, 'Access key');
        t.not(secondKey, firstKey);
        await statusBecomes(() => callAs('shop-feed', firstKey), 401, 'the old key is refused');
        t.is(await callAs('shop-feed', secondKey), 200, 'the new key works');

        // Permission sets: one more in another company, then taken back.
        await row.getByRole('button', { name: 'Permission sets' }).click();
        const grants = page.getByRole('dialog', { name: 'Permission sets of shop-feed' });
        await grants.getByText(`FLOW ALL in ${COMPANY}`).first().waitFor();
        await grants.getByLabel('Company').selectOption(OTHER);
        await grants.getByRole('button', { name: 'Grant' }).click();
        await grants
          .getByRole('status')
          .filter({ hasText: `Granted FLOW ALL in ${OTHER}.` })
          .waitFor({ timeout: UI_TIMEOUT });
        await expectAccessible(t, page, 'the permission sets dialog');
        await screenshot(t, page, 'people-grants');
        await grants.getByRole('button', { name: `Revoke FLOW ALL in ${OTHER}` }).click();
        await grants
          .getByRole('status')
          .filter({ hasText: `Revoked FLOW ALL in ${OTHER}.` })
          .waitFor({ timeout: UI_TIMEOUT });
        t.is(await grants.getByRole('button', { name: `Revoke FLOW ALL in ${OTHER}` }).count(), 0);
        await grants.getByRole('button', { name: 'Close' }).click();
        await grants.waitFor({ state: 'detached' });

        await row.getByRole('button', { name: 'Disable' }).click();
        await status(page, 'shop-feed is disabled: its calls are refused.');
        t.regex(await row.innerText(), /Disabled/);
        await statusBecomes(() => callAs('shop-feed', secondKey), 401, 'a disabled user is refused');
        await row.getByRole('button', { name: 'Enable' }).click();
        await status(page, 'shop-feed is enabled.');
        await statusBecomes(() => callAs('shop-feed', secondKey), 200, 'enabled again, it calls');

        // Bad input: a clear refusal, nothing created.
        await form.getByLabel('Name').fill('shop-feed');
        await form.getByRole('button', { name: 'Create service user' }).click();
        await page
          .getByRole('alert')
          .filter({ hasText: /shop-feed/ })
          .waitFor({ timeout: UI_TIMEOUT });
        t.is(await page.getByRole('dialog').count(), 0, 'no key for a refused create');

        await row.getByRole('button', { name: 'Delete' }).click();
        await confirmIn(page, 'Delete the service user?', 'Delete service user');
        await status(page, 'Service user shop-feed deleted.');
        await row.waitFor({ state: 'detached' });
        await statusBecomes(() => callAs('shop-feed', secondKey), 401, 'a deleted user is refused');
      });
    },
  );

  test.serial('a service user made with the keyboard alone', async (t) => {
    await asAdmin(t, async (page) => {
      await page.goto(`${consoleUrl}/people`);
      const form = page.getByRole('form', { name: 'New service user' });
      await form.getByLabel('Name').waitFor({ timeout: UI_TIMEOUT });
      await tabTo(page, form.getByLabel('Name'));
      await page.keyboard.type('keyboard-feed');
      await page.keyboard.press('Tab');
      t.true(await form.getByLabel('Company').evaluate(isFocused), 'Tab goes on to Company');
      await tabTo(page, form.getByRole('button', { name: 'Create service user' }));
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Access key' });
      await dialog.waitFor({ timeout: UI_TIMEOUT });
      t.true(await dialog.getByRole('button', { name: 'Copy' }).evaluate(isFocused), 'the dialog opens on Copy');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      t.true(
        await form.getByRole('button', { name: 'Create service user' }).evaluate(isFocused),
        'focus goes back to where it was',
      );
      await page.getByRole('row', { name: /keyboard-feed/ }).waitFor();
    });
  });

  test.serial(
    'an OAuth application: register, enable, consent, a permission set, disable, revoke consent',
    async (t) => {
      await asAdmin(t, async (page) => {
        await page.goto(`${consoleUrl}/people`);
        const form = page.getByRole('form', { name: 'Register an application' });
        await form.getByLabel('Client id').fill('erp-connector');
        await form.getByLabel('Issuer').fill('https://login.example.test/tenant/v2.0');
        await form.getByLabel('Description').fill('The ERP');
        await form.getByRole('button', { name: 'Register application' }).click();
        await status(page, 'Registered application erp-connector. Give it a permission set to let it call.');
        const row = page.getByRole('row', { name: /erp-connector/ });
        t.regex(
          await row.innerText(),
          /https:\/\/login\.example\.test\/tenant\/v2\.0[\s\S]*The ERP[\s\S]*Disabled[\s\S]*Not granted[\s\S]*none/,
        );
        await row.getByRole('button', { name: 'Enable' }).click();
        await status(page, 'erp-connector is enabled.');
        await row.getByRole('button', { name: 'Grant consent' }).click();
        await status(page, 'Consent of erp-connector granted.');
        await row.getByRole('button', { name: 'Permission sets' }).click();
        const sets = page.getByRole('dialog', { name: 'Permission sets of erp-connector' });
        await sets.getByLabel('Company').selectOption(COMPANY);
        t.is(await sets.getByLabel('Permission set').inputValue(), 'FLOW INTEGR.');
        await sets.getByRole('button', { name: 'Grant' }).click();
        await sets
          .getByRole('status')
          .filter({ hasText: `Assigned FLOW INTEGR. in ${COMPANY}.` })
          .waitFor({ timeout: UI_TIMEOUT });
        await sets.getByRole('button', { name: 'Close' }).click();
        await sets.waitFor({ state: 'detached' });
        t.regex(await row.innerText(), new RegExp(`Enabled[\\s\\S]*Granted[\\s\\S]*FLOW INTEGR\\. in ${COMPANY}`));
        await expectAccessible(t, page, 'the people page with an application');
        await screenshot(t, page, 'people');
        await row.getByRole('button', { name: 'Disable' }).click();
        await status(page, 'erp-connector is disabled: its tokens are refused.');
        await row.getByRole('button', { name: 'Revoke consent' }).click();
        await confirmIn(page, 'Revoke consent?', 'Revoke consent');
        await status(page, 'Consent of erp-connector revoked.');
        t.regex(await row.innerText(), /Disabled[\s\S]*Not granted/);
        const listed = (await stack.admin.listApps({})).apps.find((app) => app.clientId === 'erp-connector');
        t.like(
          listed,
          { consentGranted: false, permissionSets: [{ permissionSet: 'FLOW INTEGR.', company: COMPANY }] },
          'the engine has what the page shows',
        );
      });
    },
  );

  test.serial(
    'a service account: its token shown once signs in; rotated by its owner (shown before the sign-out), the old one stops; disabled; deleted',
    async (t) => {
      await asAdmin(t, async (page) => {
        await page.goto(`${consoleUrl}/people`);
        const form = page.getByRole('form', { name: 'New service account' });
        await form.getByLabel('Account name').fill('ops-admin');
        await form.getByLabel('Scope').selectOption('admin');
        t.is(
          await form.getByRole('group', { name: 'Companies' }).count(),
          0,
          'admin accounts are not bound to companies',
        );
        await form.getByRole('button', { name: 'Create service account' }).click();
        const first = await takeShownOnce(t, page, 'Service account token', 'people-token');
        const signIn = async (token: string) => (await new ConsolePage(consoleUrl).signIn(token)).status;
        t.is(await signIn(first), 200, 'the token from the dialog signs in');
        // The account's row (the console's sessions list the people signed in with its token too).
        const row = page.getByRole('table', { name: 'Service accounts' }).getByRole('row', { name: /ops-admin/ });
        t.regex(await row.innerText(), /admin[\s\S]*Enabled/);
        // Signed in with that token, its owner rotates it: the new token is shown before the console signs them out.
        let second = '';
        await inConsolePage(
          t,
          await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] }),
          async (own) => {
            await own.goto(consoleUrl);
            await own.getByLabel('Admin token').fill(first);
            await own.getByRole('button', { name: 'Sign in' }).click();
            // Signed in, the console opens the first company's flows: the way on starts from there.
            await own.getByRole('heading', { name: /^Flows of / }).waitFor({ timeout: UI_TIMEOUT });
            await own
              .getByRole('navigation', { name: 'Console' })
              .getByRole('link', { name: 'People and machines' })
              .click();
            const ownRow = own.getByRole('table', { name: 'Service accounts' }).getByRole('row', { name: /ops-admin/ });
            await ownRow.getByRole('button', { name: 'Rotate token' }).click();
            await own
              .getByRole('dialog', { name: 'Rotate the token?' })
              .getByText('You are signed in with it')
              .waitFor({ timeout: UI_TIMEOUT });
            await confirmIn(own, 'Rotate the token?', 'Rotate token');
            second = await takeShownOnce(t, own, 'Service account token');
            await own.getByLabel('Admin token').waitFor({ timeout: UI_TIMEOUT });
          },
        );
        t.not(second, first);
        await statusBecomes(() => signIn(first), 401, 'the rotated token is refused');
        t.is(await signIn(second), 200);
        await page.reload();
        await row.waitFor({ timeout: UI_TIMEOUT });
        await row.getByRole('button', { name: 'Disable' }).click();
        await status(page, 'ops-admin is disabled: its token is refused.');
        await statusBecomes(() => signIn(second), 401, 'a disabled account is refused');

        await form.getByLabel('Account name').fill('shop-facade');
        await form.getByLabel('Scope').selectOption('invoke');
        await form.getByRole('group', { name: 'Companies' }).getByLabel(COMPANY).check();
        await form.getByRole('button', { name: 'Create service account' }).click();
        await takeShownOnce(t, page, 'Service account token');
        t.regex(
          await page.getByRole('row', { name: /shop-facade/ }).innerText(),
          new RegExp(`invoke[\\s\\S]*${COMPANY}[\\s\\S]*Enabled`),
        );

        await row.getByRole('button', { name: 'Delete' }).click();
        await confirmIn(page, 'Delete the service account?', 'Delete service account');
        await row.waitFor({ state: 'detached' });
      });
    },
  );

  test.serial('hook secrets are write-only: typed or generated, never shown back; a bad one is refused', async (t) => {
    const typed = 'typed-hook-secret-0123456789abcdef';
    await asAdmin(t, async (page) => {
      await page.goto(`${consoleUrl}/settings/${encodeURIComponent(COMPANY)}`);
      await page.getByRole('heading', { name: `Settings of ${COMPANY}` }).waitFor({ timeout: UI_TIMEOUT });
      const form = page.getByRole('form', { name: 'Set a hook secret' });
      await form.getByLabel('Activity').fill('github.push');
      await form.getByLabel('Secret', { exact: true }).fill(`${typed} `);
      await form.getByRole('button', { name: 'Set hook secret' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'starts or ends with white space' })
        .waitFor({ timeout: UI_TIMEOUT });
      t.false((await page.getByRole('alert').innerText()).includes(typed), 'the refusal never quotes the secret');
      await page.getByText('No hook secrets in People Co yet.').waitFor();

      await form.getByLabel('Secret', { exact: true }).fill(typed);
      await form.getByRole('button', { name: 'Set hook secret' }).click();
      await status(page, 'Hook secret of github.push set.');
      t.is(await form.getByLabel('Secret', { exact: true }).inputValue(), '', 'the typed secret leaves the page');
      t.false((await page.content()).includes(typed));
      const row = page.getByRole('row', { name: /github\.push/ });
      await row.getByRole('button', { name: 'Replace' }).click();
      await form.getByLabel('Generate the secret').check();
      await form.getByLabel('Keep the previous secret valid for (seconds)').fill('3600');
      await form.getByRole('button', { name: 'Set hook secret' }).click();
      const generated = await takeShownOnce(t, page, 'Hook secret', 'hook-secret-dialog');
      await status(page, /The previous secret still holds until/);
      t.notRegex(await row.locator('td').nth(1).innerText(), /^—$/, 'the previous secret has an end');
      await page.reload();
      await row.waitFor({ timeout: UI_TIMEOUT });
      const content = await page.content();
      t.false(content.includes(typed) || content.includes(generated), 'neither secret is on the page after a reload');
      const listed = JSON.stringify(
        (
          await (
            await rpcAs(ADMIN)
          ).call('flowhook.engine.v1.HookSecretAdminService', 'ListHookSecrets', { company: COMPANY })
        ).json,
      );
      t.regex(listed, /github\.push/);
      t.false(listed.includes(typed) || listed.includes(generated), 'no RPC reads a hook secret back');
    });
  });

  test.serial('a hook secret generated with the keyboard alone', async (t) => {
    await asAdmin(t, async (page) => {
      await page.goto(`${consoleUrl}/settings/${encodeURIComponent(COMPANY)}`);
      const form = page.getByRole('form', { name: 'Set a hook secret' });
      await form.getByLabel('Activity').waitFor({ timeout: UI_TIMEOUT });
      await tabTo(page, form.getByLabel('Activity'));
      await page.keyboard.type('stripe.charge');
      await page.keyboard.press('Tab');
      t.true(await form.getByLabel('Generate the secret').evaluate(isFocused), 'Tab goes on to Generate the secret');
      await page.keyboard.press('Space');
      t.true(await form.getByLabel('Generate the secret').isChecked());
      await tabTo(page, form.getByRole('button', { name: 'Set hook secret' }));
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Hook secret' });
      await dialog.waitFor({ timeout: UI_TIMEOUT });
      t.true(await dialog.getByRole('button', { name: 'Copy' }).evaluate(isFocused));
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('row', { name: /stripe\.charge/ }).waitFor();
    });
  });

  test.serial("the company's egress list: edited, a bad entry refused with nothing changed, removed", async (t) => {
    await asAdmin(t, async (page) => {
      await page.goto(`${consoleUrl}/settings/${encodeURIComponent(COMPANY)}`);
      const egress = page.getByRole('region', { name: 'Egress list' });
      await egress.getByText('Not narrowed').waitFor({ timeout: UI_TIMEOUT });
      t.is(
        await page.getByRole('banner').getByLabel('Company').inputValue(),
        COMPANY,
        'the header names the company shown',
      );
      await egress.getByLabel('Allowed hosts').fill('api.example.com\n10.0.0.0/8');
      await egress.getByRole('button', { name: 'Save egress list' }).click();
      await egress.getByText('Narrowed to 2 entries.').waitFor({ timeout: UI_TIMEOUT });
      await expectAccessible(t, page, 'the company settings page');
      await screenshot(t, page, 'company-settings');
      await egress.getByLabel('Allowed hosts').fill('api.example.com\nnot a host at all!');
      await egress.getByRole('button', { name: 'Save egress list' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /not a host at all/ })
        .waitFor({ timeout: UI_TIMEOUT });
      t.deepEqual(
        (await stack.admin.getCompanyEgress({ company: COMPANY })).egress?.allow,
        ['api.example.com', '10.0.0.0/8'],
        'a refused list changes nothing',
      );
      await page.reload();
      t.is(await egress.getByLabel('Allowed hosts').inputValue(), 'api.example.com\n10.0.0.0/8');
      await egress.getByRole('button', { name: 'Remove egress list' }).click();
      await confirmIn(page, 'Remove the egress list?', 'Remove egress list');
      await egress.getByText('Not narrowed').waitFor({ timeout: UI_TIMEOUT });
      t.false((await stack.admin.getCompanyEgress({ company: COMPANY })).egress?.narrowed);
    });
  });

  test.serial(
    'the audit log names the person: filtered by person and action it shows the changes just made',
    async (t) => {
      await asAdmin(t, async (page) => {
        await page.goto(`${consoleUrl}/audit?person=${encodeURIComponent(ADMIN)}&action=user`);
        await page.getByRole('heading', { name: 'Audit log' }).waitFor({ timeout: UI_TIMEOUT });
        const table = page.getByRole('table', { name: 'Audit events, newest first' });
        await table.waitFor({ timeout: UI_TIMEOUT });
        const actions = await table.locator('tbody tr td:nth-child(3)').allInnerTexts();
        for (const action of [
          'user.create',
          'user.regenerate-key',
          'user.grant',
          'user.revoke',
          'user.set-state',
          'user.delete',
        ])
          t.true(actions.includes(action), action);
        t.true(
          actions.every((action) => action.startsWith('user.')),
          'only user actions',
        );
        const people = await table.locator('tbody tr th').allInnerTexts();
        t.true(people.length > 0 && people.every((person) => person.startsWith(ADMIN)), 'each names the person');
        t.regex(await table.innerText(), /already exists/, 'the refused create is there too');
        t.regex(
          await table.innerText(),
          /user\.set-state[\s\S]*\{"enabled":true\}[\s\S]*user\.set-state[\s\S]*\{"enabled":false\}/,
          'an enable after a disable, each said',
        );
        await expectAccessible(t, page, 'the audit log');
        await screenshot(t, page, 'audit-log');

        await page.getByLabel('Action').fill('hook-secret');
        await table.getByText('hook-secret.set').first().waitFor({ timeout: UI_TIMEOUT });
        t.true(
          (await table.locator('tbody tr td:nth-child(3)').allInnerTexts()).every(
            (action) => action === 'hook-secret.set',
          ),
        );
        await page.getByLabel('Action').fill('');
        for (const action of [
          'app.register',
          'app.set-state',
          'app.revoke-consent',
          'service-account.create',
          'service-account.set-state',
          'company.set-egress',
        ])
          await table.getByText(action, { exact: true }).first().waitFor({ timeout: UI_TIMEOUT });
        // The rotation its owner made, signed in with the account's own token: the person is the account.
        await page.getByLabel('Person').fill('ops-admin');
        await table.getByText('service-account.rotate-token', { exact: true }).waitFor({ timeout: UI_TIMEOUT });
        await page.getByLabel('Person').fill(ADMIN);
        await table.getByText('app.register', { exact: true }).first().waitFor({ timeout: UI_TIMEOUT });
        t.regex(page.url(), /person=dana%40example\.com/);
        const content = await page.content();
        t.false(/typed-hook-secret/.test(content), 'no secret in the audit log');

        await page.getByLabel('Person').fill('nobody@example.com');
        await page.getByText('No events match.').waitFor({ timeout: UI_TIMEOUT });
        // The time window: nothing from tomorrow on; everything until tomorrow.
        await page.getByLabel('Person').fill(ADMIN);
        const tomorrow = new Date(Date.now() + 24 * 3600_000);
        const local = (date: Date) =>
          `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
        await page.getByLabel('From').fill(local(tomorrow));
        await page.getByText('No events match.').waitFor({ timeout: UI_TIMEOUT });
        await page.getByLabel('From').fill('');
        await page.getByLabel('Until').fill(local(tomorrow));
        await table.getByText('user.create', { exact: true }).first().waitFor({ timeout: UI_TIMEOUT });
      });
    },
  );

  test.serial('the audit log pages: older events a page at a time, in the RPC and on the page', async (t) => {
    const page = await rpcAs(ADMIN);
    const list = (body: object) =>
      page.call('flowhook.engine.v1.AuditService', 'ListAuditEvents', { person: ADMIN, ...body });
    const all = (await list({})).json.events as { id: string }[];
    t.true(all.length > 4);
    const first = await list({ limit: 3 });
    const second = await list({ limit: 3, pageToken: first.json.nextPageToken });
    t.deepEqual(
      [...(first.json.events as { id: string }[]), ...(second.json.events as { id: string }[])].map(
        (event) => event.id,
      ),
      all.slice(0, 6).map((event) => event.id),
    );
    t.is((await list({ pageToken: "1'; drop table audit_event" })).status, 400);

    // More than a page of one action, then the page's own buttons.
    for (let i = 0; i < 26; i++)
      for (const enabled of [false, true])
        t.is(
          (await page.call('flowhook.engine.v1.UserAdminService', 'SetUserState', { name: 'keyboard-feed', enabled }))
            .status,
          200,
        );
    const total = ((await list({ action: 'user.set-state', limit: 1000 })).json.events as unknown[]).length;
    t.true(total > 50 && total <= 100);
    await asAdmin(t, async (browserPage) => {
      await browserPage.goto(`${consoleUrl}/audit?person=${encodeURIComponent(ADMIN)}&action=user.set-state`);
      await browserPage.getByText('50 events, older ones on the next page').waitFor({ timeout: UI_TIMEOUT });
      t.true(await browserPage.getByRole('button', { name: 'Newer events' }).isDisabled());
      await browserPage.getByRole('button', { name: 'Older events' }).click();
      await browserPage
        .getByText(`Page 2: ${total - 50} event${total - 50 === 1 ? '' : 's'}`)
        .waitFor({ timeout: UI_TIMEOUT });
      t.true(await browserPage.getByRole('button', { name: 'Older events' }).isDisabled());
      await browserPage.getByRole('button', { name: 'Newer events' }).click();
      await browserPage.getByText('50 events, older ones on the next page').waitFor({ timeout: UI_TIMEOUT });
    });
  });

  test.serial(
    'a viewer reads people but cannot change them; someone with a role in one company sees none',
    async (t) => {
      await withPage(t, VIEWER, { '': 'viewer' }, async (page) => {
        await page.goto(`${consoleUrl}/people`);
        await page
          .getByText('You can read these: changing them needs the admin role in every company.')
          .waitFor({ timeout: UI_TIMEOUT });
        await page.getByRole('row', { name: /keyboard-feed/ }).waitFor({ timeout: UI_TIMEOUT });
        t.is(await page.getByRole('form').count(), 0, 'no forms');
        t.is(
          await page.getByRole('button', { name: /New key|Disable|Delete|Rotate token/ }).count(),
          0,
          'no buttons that change',
        );
        await expectAccessible(t, page, 'the people page of a viewer');
        await screenshot(t, page, 'people-viewer');
        await page.goto(`${consoleUrl}/settings/${encodeURIComponent(COMPANY)}`);
        await page
          .getByText(`You can read these: changing them needs the admin role in ${COMPANY}.`)
          .waitFor({ timeout: UI_TIMEOUT });
        await page.getByRole('row', { name: /github\.push/ }).waitFor();
        t.is(await page.getByRole('form', { name: 'Set a hook secret' }).count(), 0);
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
        await page
          .getByRole('alert')
          .filter({ hasText: 'Could not load the audit log: this needs the admin role in every company' })
          .waitFor({ timeout: UI_TIMEOUT });
        await expectAccessible(t, page, 'the audit log refused to a viewer');
      });
      const viewer = await rpcAs(VIEWER);
      const refused = await viewer.call('flowhook.engine.v1.UserAdminService', 'RegenerateUserKey', {
        name: 'keyboard-feed',
      });
      t.is(refused.status, 403);
      t.regex(String(refused.json.message), /admin role in every company/);
      const audit = await (
        await rpcAs(ADMIN)
      ).call('flowhook.engine.v1.AuditService', 'ListAuditEvents', { person: VIEWER });
      t.like(
        (audit.json.events as object[])[0],
        { action: 'user.regenerate-key', outcome: 'permission_denied', person: VIEWER },
        'the refused attempt is on record with the person',
      );

      await withPage(t, 'otto@example.com', { [COMPANY]: 'admin' }, async (page) => {
        await page.goto(`${consoleUrl}/people`);
        await page.getByText('seeing them needs a role in every company').waitFor({ timeout: UI_TIMEOUT });
        t.is(await page.getByRole('table').count(), 0);
        // Sign out gives way to the sign-in form at once, and nothing of the session stays on the page.
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Admin token').waitFor({ timeout: UI_TIMEOUT });
        t.false((await page.content()).includes('otto@example.com'));
      });
    },
  );

  test.serial(
    "an admin sees who is signed in and ends one person's sessions: that person is signed out at the next call",
    async (t) => {
      const leaving = new ConsolePage(consoleUrl);
      leaving.cookie = `flowhook_console_session=${await sessionOf('leaving@example.com', { [COMPANY]: 'editor' })}`;
      leaving.csrf = (await leaving.call('flowhook.engine.v1.ConsoleService', 'GetSession')).json.csrfToken as string;
      await asAdmin(t, async (page) => {
        await page.goto(`${consoleUrl}/people`);
        const table = page.getByRole('table', { name: 'Console sessions' });
        const row = table.getByRole('row', { name: /leaving@example\.com/ });
        await row.waitFor({ timeout: UI_TIMEOUT });
        t.regex(await row.innerText(), /identity provider\s+editor in People Co[\s\S]*at sign-in only/);
        await table
          .getByRole('row', { name: new RegExp(`${ADMIN.replace('.', '\\.')} \\(you\\)`) })
          .first()
          .waitFor();
        await expectAccessible(t, page, 'the console sessions');
        await page.getByRole('heading', { name: 'Console sessions' }).scrollIntoViewIfNeeded();
        await screenshot(t, page, 'people-sessions');
        await row.getByRole('button', { name: 'End the sessions of leaving@example.com' }).click();
        await confirmIn(page, 'End the sessions of leaving@example.com?', 'End sessions');
        await status(page, '1 session(s) of leaving@example.com ended.');
        t.is(await table.getByRole('row', { name: /leaving@example\.com/ }).count(), 0);
      });
      t.is((await leaving.flowAdmin('ListCompanies')).status, 401);
    },
  );
}
