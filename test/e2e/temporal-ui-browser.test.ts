// What an operator sees in the Temporal Web UI, checked in a real browser
// (issue 13, "Done when"): `flowhook start` on a fresh data directory (its own
// Temporal dev server with the UI), one call of each example flow, then
// headless Chromium on the UI URL from the start banner:
// - the workflows list shows every execution, with the flow's search
//   attributes as columns, and a FlowOutcome query shows only the right ones
//   (the list of UI 2.54 has no summary column: list results carry no user
//   metadata, so the summary is checked on the execution's page);
// - an execution's User Metadata page shows the static summary and details;
// - the timeline names activities and timers by their step;
// - a flow waiting on a timer shows its current details.
// Screenshots go to test-output/ui/ (git-ignored). Needs Debian's `chromium`.
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import { findChromium } from '../support/chromium.ts';
import {
  FLOWHOOK,
  startEnvironment,
  startFlowhook,
  stopFlowhook,
  type StartedFlowhook,
} from '../support/flowhook-start.ts';
import { startSoapPriceServer, type SoapPriceServer } from '../../examples/soap-bridge/price-service.ts';

const SCREENSHOTS = fileURLToPath(new URL('../../test-output/ui/', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../examples/flows/', import.meta.url));
const INSTALL_HINT =
  "the Temporal UI browser test needs Debian's chromium: apt-get install -y chromium (it is looked up as `chromium` on PATH)";
// The list's own columns (Status, Workflow ID) plus the flow's search attributes: what an operator
// picks with the list's column settings. The UI keeps that choice in localStorage under this key.
const LIST_COLUMNS = ['Status', 'Workflow ID', 'FlowName', 'FlowActivity', 'FlowOutcome', 'Start'];
const ROW = '[data-testid="workflows-summary-configurable-table-row"]';
// Generous: the suite shares two cores; these bound waits, they assert nothing about speed.
const UI_TIMEOUT = 30_000;

/** One execution per example flow (and one that waits on a timer), as the UI should show it. */
interface Called {
  flowName: string;
  activity: string;
  executionId: string;
  outcome: string;
  summary: string;
}

interface Context {
  started: StartedFlowhook;
  soap: SoapPriceServer;
  browser: Browser;
  uiUrl: string;
  calls: Record<string, Called>;
  dataDir: string;
}

const chromiumPath = findChromium();
if (!chromiumPath) {
  if (process.env.CI) {
    test('Temporal UI in headless Chromium', (t) => {
      t.fail(`chromium is not installed: ${INSTALL_HINT}`);
    });
  } else {
    process.stderr.write(`\n!!! SKIPPED test/e2e/temporal-ui-browser.test.ts: ${INSTALL_HINT}\n\n`);
    test.skip(`Temporal UI in headless Chromium (skipped: ${INSTALL_HINT})`, () => undefined);
  }
} else {
  registerUiTests(chromiumPath);
}

function registerUiTests(executablePath: string): void {
  let context: Context | undefined;
  const ctx = () => {
    if (!context) throw new Error('the stack did not start (see the before hook)');
    return context;
  };

  test.before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    context = await startAndCallExamples(executablePath);
  });
  test.after.always(async () => {
    if (!context) return;
    await context.browser.close().catch(() => undefined);
    await stopFlowhook(context.started);
    await context.soap.close();
    rmSync(context.dataDir, { recursive: true, force: true });
  });

  test.serial('the workflows list shows every execution with its flow name, activity and outcome', async (t) => {
    const { calls } = ctx();
    await withPage(t, async (page) => {
      const rows = await listUntil(
        page,
        `${ctx().uiUrl}/namespaces/default/workflows`,
        Object.values(calls).map((call) => call.executionId),
        false,
      );
      for (const call of Object.values(calls)) {
        const row = rows.find((text) => text.includes(call.executionId));
        t.truthy(row, `${call.executionId} is listed`);
        for (const value of [call.flowName, call.activity, call.outcome])
          t.true(row!.includes(value), `row of ${call.executionId} shows ${value}: ${row}`);
      }
      await screenshot(t, page, 'workflows-list');
    });
  });

  test.serial('a FlowOutcome query in the URL lists only the executions with that outcome', async (t) => {
    const { calls } = ctx();
    await withPage(t, async (page) => {
      for (const outcome of ['responded', 'instant']) {
        const expected = Object.values(calls)
          .filter((call) => call.outcome === outcome)
          .map((call) => call.executionId);
        t.true(expected.length > 0, outcome);
        const url = `${ctx().uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(`FlowOutcome="${outcome}"`)}`;
        const rows = await listUntil(page, url, expected, true);
        t.deepEqual(
          rows.map((text) => Object.values(calls).find((call) => text.includes(call.executionId))?.executionId).sort(),
          [...expected].sort(),
          outcome,
        );
        await screenshot(t, page, `workflows-outcome-${outcome}`);
      }
    });
  });

  test.serial("an execution's User Metadata page shows its static summary and details", async (t) => {
    const hello = ctx().calls.hello!;
    await withPage(t, async (page) => {
      await openUserMetadata(page, ctx().uiUrl, hello.executionId);
      await page
        .frameLocator('#user-metadata-summary')
        .getByText(hello.summary, { exact: true })
        .waitFor({ timeout: UI_TIMEOUT });
      const details = page.frameLocator('#user-metadata-details');
      // The trigger's description (bold in the Markdown), the caller, where to look next; never payload.
      await details.getByText('Greets the caller, then finishes in the background').waitFor({ timeout: UI_TIMEOUT });
      await details.getByText(/caller: user:flowhook-service/).waitFor({ timeout: UI_TIMEOUT });
      t.false((await details.locator('body').innerText()).includes('Ada'), 'the payload is not in the details');
      await screenshot(t, page, 'execution-user-metadata-hello');
      t.pass();
    });
  });

  test.serial('the timeline names activities and timers by their step', async (t) => {
    const { calls } = ctx();
    // A timeline row reads `<activity type> • <summary>` for activities, the summary alone for timers.
    const expectations: [string, RegExp[]][] = [
      ['soap', [/httpRequest • steps\[0\] httpRequest "Ask the SOAP price service"/]],
      [
        'order',
        [
          /record • steps\[1\]\.if\.else\[0\] record "Look for an earlier import"/,
          /record • steps\[1\]\.if\.else\[1\]\.if\.else\[1\] record "Store the order"/,
        ],
      ],
      ['payment', [/record • steps\[0\] record "Find the invoice"/]],
      ['hello', [/steps\[2\] sleep "Pretend to do slow work after answering"/]],
    ];
    await withPage(t, async (page) => {
      for (const [name, labels] of expectations) {
        await page.goto(`${ctx().uiUrl}/namespaces/default/workflows/${encodeURIComponent(calls[name]!.executionId)}`);
        for (const label of labels) await page.getByText(label).first().waitFor({ timeout: UI_TIMEOUT });
        await screenshot(t, page, `execution-timeline-${name}`);
      }
      t.pass();
    });
  });

  test.serial('a flow waiting on a timer shows its current details', async (t) => {
    const timer = ctx().calls.timer!;
    await withPage(t, async (page) => {
      await openUserMetadata(page, ctx().uiUrl, timer.executionId);
      const text = await frameTextUntil(page, '#user-metadata-current-details', /Wait for the settlement window/);
      // The UI's Markdown renderer typesets `2/2` with a fraction slash (U+2044).
      t.regex(
        text,
        /^step 2[/\u2044]2 · Wait for the settlement window \(sleep\) · waiting for \d{4}-\d\d-\d\dT[\d:.]+Z$/m,
      );
      await page
        .frameLocator('#user-metadata-summary')
        .getByText(timer.summary, { exact: true })
        .waitFor({ timeout: UI_TIMEOUT });
      await screenshot(t, page, 'execution-current-details-timer');
      t.pass();
    });
  });

  async function withPage(t: ExecutionContext, use: (page: Page) => Promise<void>): Promise<void> {
    t.timeout(3 * 60_000);
    const browserContext = await ctx().browser.newContext({ viewport: { width: 1600, height: 1000 } });
    // The list's column choice, as the UI's column settings store it (per namespace).
    const columns = JSON.stringify({ default: LIST_COLUMNS.map((label, index) => ({ label, pinned: index < 2 })) });
    await browserContext.addInitScript({
      content: `window.localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(columns)});`,
    });
    const page = await browserContext.newPage();
    try {
      await use(page);
    } catch (error) {
      await screenshot(t, page, `failed-${t.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => undefined);
      throw error;
    } finally {
      await browserContext.close();
    }
  }
}

/** `flowhook start` on an empty data directory, the examples published and each called once. */
async function startAndCallExamples(executablePath: string): Promise<Context> {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-ui-'));
  const soap = await startSoapPriceServer();
  const env = await startEnvironment(dataDir, {
    // The SOAP bridge calls the price service on loopback, which the egress policy refuses unless allowed.
    FLOWHOOK_EGRESS_ALLOW: new URL(soap.url).host,
    FLOWHOOK_LOG_LEVEL: 'warn',
  });
  const started = await startFlowhook(env, true);
  let browser: Browser | undefined;
  try {
    const banner = JSON.parse(started.banner.trim().split('\n').pop()!) as {
      webhookUrl: string;
      temporalUiUrl: string | null;
      /** stdout is a pipe here, so the credentials are in a 0600 file the line names. */
      firstRun: { credentialsFile: string } | null;
    };
    if (!banner.temporalUiUrl || !banner.firstRun)
      throw new Error(`start printed no Temporal UI URL or first-run credentials: ${started.banner}`);
    const firstRun = JSON.parse(readFileSync(banner.firstRun.credentialsFile, 'utf8')) as {
      serviceUser: string;
      accessKey: string;
      activity: string;
      secret: string;
    };
    const secrets = await applyExamples(env, dataDir, soap, Number(env.FLOWHOOK_ENGINE_PORT));
    secrets[firstRun.activity] = firstRun.secret;

    const auth = `Basic ${Buffer.from(`${firstRun.serviceUser}:${firstRun.accessKey}`).toString('base64')}`;
    const call = async (activity: string, payload: unknown): Promise<string> => {
      const response = await fetch(banner.webhookUrl, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ activity, secret: secrets[activity], payload }),
      });
      const text = await response.text();
      const id = response.headers.get('x-flowhook-execution-id');
      if (response.status !== 200 || !id) throw new Error(`${activity}: ${response.status} ${text}`);
      return id;
    };
    const summary = (activity: string, name: string, mode: string) => `${activity} · Default · ${name} v1 · ${mode}`;
    const calls: Record<string, Called> = {};
    const add = async (
      key: string,
      flowName: string,
      activity: string,
      outcome: string,
      mode: string,
      payload: unknown,
    ) => {
      calls[key] = {
        flowName,
        activity,
        outcome,
        executionId: await call(activity, payload),
        summary: summary(activity, flowName, mode),
      };
    };
    await add('hello', 'hello-webhook', 'examples.hello', 'responded', 'wait for response', { name: 'Ada' });
    await add('order', 'order-import', 'partners.portal.order', 'responded', 'wait for response', {
      orderRef: 'PO-UI-1',
      customer: 'C-7',
      lines: [{ sku: 'A', qty: 2 }],
    });
    // No invoice INV-UI-1 exists (records have no CLI): the caller gets 200 at once, the flow then fails at
    // "Find the invoice" — the failure an operator looks up in the UI.
    await add('payment', 'payment-callback', 'payments.provider.callback', 'instant', 'instant return', {
      invoiceId: 'INV-UI-1',
      status: 'succeeded',
      amount: 10,
      paymentId: 'pay_ui',
    });
    await add('soap', 'soap-bridge', 'bridge.soap.price', 'responded', 'wait for response', {
      sku: 'P-1',
      quantity: 3,
    });
    await add('timer', 'ui-timer', 'ui.timer', 'responded', 'wait for response', { ref: 'T-1' });
    if (soap.requests.length !== 1)
      throw new Error(`the SOAP bridge called the price service ${soap.requests.length} times`);

    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    return { started, soap, browser, uiUrl: banner.temporalUiUrl.replace(/\/$/, ''), calls, dataDir };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await stopFlowhook(started);
    await soap.close();
    throw error;
  }
}

/**
 * `flowhook flow apply … --publish` for the examples start does not publish itself (the SOAP bridge
 * pointed at the local price service) and a flow that waits on a long timer after answering.
 */
async function applyExamples(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  soap: SoapPriceServer,
  enginePort: number,
): Promise<Record<string, string>> {
  const files = join(dataDir, 'flows');
  mkdirSync(files);
  const soapBridge = readFileSync(join(EXAMPLES, 'soap-bridge.flow.yaml'), 'utf8');
  if (!soapBridge.includes('http://127.0.0.1:8089/soap/prices'))
    throw new Error('soap-bridge.flow.yaml no longer names the price service URL this test replaces');
  writeFileSync(
    join(files, 'soap-bridge.flow.yaml'),
    soapBridge.replace('http://127.0.0.1:8089/soap/prices', `${soap.url}/soap/prices`),
  );
  writeFileSync(
    join(files, 'ui-timer.flow.yaml'),
    [
      'company: Default',
      'name: ui-timer',
      'description: Answers at once, then waits on a long timer',
      'trigger:',
      '  webhook:',
      '    description: Settles a payment after a waiting period',
      '    activity: ui.timer',
      '    responseMode: WAIT_FOR_RESPONSE_STEP',
      'steps:',
      '  - respond: { description: Acknowledge, statusCode: 202, contentType: text/plain, body: accepted }',
      '  - sleep: { description: Wait for the settlement window, duration: 10m }',
      '',
    ].join('\n'),
  );
  const paths = [
    join(EXAMPLES, 'order-import.flow.yaml'),
    join(EXAMPLES, 'payment-callback.flow.yaml'),
    join(files, 'soap-bridge.flow.yaml'),
    join(files, 'ui-timer.flow.yaml'),
  ];
  const applied = await runCli(['flow', 'apply', ...paths, '--publish', '--json'], {
    ...env,
    FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${enginePort}`,
  });
  if (applied.code !== 0) throw new Error(`flow apply failed (${applied.code}): ${applied.out}\n${applied.err}`);
  const results = (
    JSON.parse(applied.out) as { results: { secret?: string; flow?: { activity?: string }; error?: unknown }[] }
  ).results;
  const secrets: Record<string, string> = {};
  for (const [index, result] of results.entries()) {
    const activity = /activity: (\S+)/.exec(readFileSync(paths[index]!, 'utf8'))?.[1];
    if (!result.secret || !activity)
      throw new Error(`flow apply gave no secret for ${paths[index]}: ${JSON.stringify(result)}`);
    secrets[activity] = result.secret;
  }
  return secrets;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], {
      env,
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/**
 * Opens the list and reloads until it shows the expected executions (visibility is eventually
 * consistent; the list does not refresh by itself) — all of them, and with `exact` nothing else.
 * Returns the rows' texts.
 */
async function listUntil(page: Page, url: string, expectedIds: string[], exact: boolean): Promise<string[]> {
  const listed = async () => {
    await page.goto(url);
    await page.locator(ROW).first().waitFor({ timeout: UI_TIMEOUT });
    return page.locator(ROW).allInnerTexts();
  };
  const complete = (rows: string[]) =>
    expectedIds.every((id) => rows.some((text) => text.includes(id))) && (!exact || rows.length === expectedIds.length);
  return eventually(listed, {
    until: complete,
    timeoutMs: 60_000,
    intervalMs: 500,
    what: `the list showing ${exact ? 'exactly ' : ''}${expectedIds.join(', ')}`,
  });
}

async function openUserMetadata(page: Page, uiUrl: string, executionId: string): Promise<void> {
  // The execution's page (the UI opens its latest run), then the tab an operator clicks.
  await page.goto(`${uiUrl}/namespaces/default/workflows/${encodeURIComponent(executionId)}`);
  await page.getByText('User Metadata', { exact: true }).click({ timeout: UI_TIMEOUT });
  await page.waitForURL(/\/user-metadata$/, { timeout: UI_TIMEOUT });
}

/** The text of a Markdown frame once it contains `expected`. */
async function frameTextUntil(page: Page, frame: string, expected: RegExp): Promise<string> {
  const body = page.frameLocator(frame).locator('body');
  await body.waitFor({ timeout: UI_TIMEOUT });
  return eventually(() => body.innerText(), {
    until: (text) => expected.test(text),
    timeoutMs: UI_TIMEOUT,
    intervalMs: 250,
    what: `${frame} showing ${expected}`,
  });
}

async function screenshot(t: ExecutionContext, page: Page, name: string): Promise<void> {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  t.log(`screenshot: ${path}`);
}
