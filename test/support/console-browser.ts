// What the console's browser tests share: axe-core run inside the page, screenshots
// into test-output/console/, the console's pages built when they are missing
// or stale, and moving through a page with the keyboard alone.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { buildConsole, isConsoleCurrent } from '../../console/build-console.ts';
import { findChromium } from './chromium.ts';

export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/console/', import.meta.url));
export const INSTALL_HINT =
  "the console's browser tests need Debian's chromium: apt-get install -y chromium (it is looked up as `chromium` on PATH)";

/** `npm install` builds the pages; a checkout changed since (or one installed otherwise) gets them built here. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (!isConsoleCurrent()) await buildConsole();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's findings on the page as it is now, serious and critical only.
 * Evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy does not govern (a script tag would be refused).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  const results = (await page.evaluate('window.axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: AxeViolation[];
  };
  return results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

export async function expectAccessible(t: ExecutionContext, page: Page, what: string): Promise<void> {
  const violations = await seriousViolations(page);
  t.deepEqual(
    violations.map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    ),
    [],
    `axe-core on ${what}`,
  );
}

export async function screenshot(t: ExecutionContext, page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  t.log(`screenshot: ${path}`);
}

/** Presses Tab (or Shift+Tab) until `target` has the focus, as a keyboard user would; fails when it never gets it. */
export async function tabTo(
  page: Page,
  target: Locator,
  options: { backwards?: boolean; most?: number } = {},
): Promise<void> {
  const element = await target.elementHandle();
  if (!element) throw new Error('tabTo: the target is not on the page');
  for (let presses = 0; presses < (options.most ?? 60); presses++) {
    if (await element.evaluate(isFocused)) return;
    await page.keyboard.press(options.backwards ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`tabTo: ${options.most ?? 60} presses of Tab never reached the target`);
}

/** For `locator.evaluate`: whether the element has the focus (runs in the page, where `document` is). */
export function isFocused(node: unknown): boolean {
  return node === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement;
}

/**
 * A new page of `browserContext` for one test: it fails when the page breaks its
 * Content-Security-Policy, leaves a screenshot when the test fails, and closes the context.
 */
let failedPages = 0;

export async function inConsolePage(
  t: ExecutionContext,
  browserContext: BrowserContext,
  use: (page: Page) => Promise<void>,
): Promise<void> {
  const page = await browserContext.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  try {
    await use(page);
    t.deepEqual(cspViolations, [], 'the page broke none of its Content-Security-Policy');
  } catch (error) {
    // A page inside another test's page gets a name of its own: the outer one's would overwrite it.
    await screenshot(
      t,
      page,
      `failed-${t.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}${++failedPages > 1 ? `-${failedPages}` : ''}`,
    ).catch(() => undefined);
    throw error;
  } finally {
    await browserContext.close();
  }
}

/**
 * Registers a file's browser tests with Debian's chromium; without it the file fails in CI (where
 * .ci/run installs it) and is skipped, loudly, elsewhere.
 */
export function withChromium(file: string, what: string, register: (executablePath: string) => void): void {
  const executablePath = findChromium();
  if (executablePath) return register(executablePath);
  if (process.env.CI) {
    test(`${what} in headless Chromium`, (t) => t.fail(`chromium is not installed: ${INSTALL_HINT}`));
    return;
  }
  process.stderr.write(`\n!!! SKIPPED ${file}: ${INSTALL_HINT}\n\n`);
  test.skip(`${what} in headless Chromium (skipped: ${INSTALL_HINT})`, () => undefined);
}
