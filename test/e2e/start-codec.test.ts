// `flowhook start` on embedded defaults (its own Temporal dev server with the
// Web UI) wires the codec server: the UI's settings name it as the codec
// endpoint, and a doNotLogPayload execution whose history the UI server hands
// out as ciphertext decodes — exactly as the UI's page asks, with the session
// cookie of an operator who signed in with the admin token `start` made —
// over HTTP as the UI's page sends it, and in the real UI in headless Chromium.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { chromium } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import {
  FLOWHOOK,
  startEnvironment,
  startFlowhook,
  stopFlowhook,
  type StartedFlowhook,
} from '../support/flowhook-start.ts';

/** Screenshots of the UI before and after signing in (git-ignored). Needs Debian's `chromium`. */
const SCREENSHOTS = fileURLToPath(new URL('../../test-output/codec/', import.meta.url));

interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

const HIDDEN_FLOW = `company: Default
name: card-check
trigger:
  webhook:
    activity: cards.check
    responseMode: WAIT_FOR_RESPONSE_STEP
    syncTimeoutSeconds: 10
    doNotLogPayload: true
steps:
  - respond: { description: Acknowledge, statusCode: 200, body: '\${ {"ok": true} }' }
`;

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FLOWHOOK, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

const text = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('utf8');

interface Banner {
  temporalUiUrl: string;
  codecUrl: string;
  codecLoginUrl: string;
  webhookUrl: string;
  /** stdout is a pipe here, so the credentials are in a 0600 file the line names. */
  firstRun: { credentialsFile: string };
}

let started: StartedFlowhook;
let line: Banner;
let dataDir: string;
let codecPort: number;
let adminToken: string;
/** One doNotLogPayload execution, made in before(): its id and the card number its payload carries. */
let execution: { workflowId: string; card: string };

test.before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'flowhook-codec-'));
  const env = await startEnvironment(dataDir);
  codecPort = Number(env.FLOWHOOK_CODEC_PORT);
  started = await startFlowhook(env, true);
  line = JSON.parse(started.banner.trim().split('\n').pop()!) as Banner;
  adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();

  const flowFile = join(dataDir, 'card-check.flow.yaml');
  writeFileSync(flowFile, HIDDEN_FLOW);
  const applied = await cli(['flow', 'apply', flowFile, '--publish', '--json'], {
    ...env,
    FLOWHOOK_ENGINE_URL: `http://127.0.0.1:${env.FLOWHOOK_ENGINE_PORT}`,
  });
  const secret = /"secret":\s*"([^"]+)"/.exec(applied.out)?.[1];
  if (applied.code !== 0 || !secret) throw new Error(`flow apply failed: ${applied.out}\n${applied.err}`);
  const card = `CARD-${Math.random().toString(36).slice(2, 12)}`;
  const credentials = JSON.parse(readFileSync(line.firstRun.credentialsFile, 'utf8')) as {
    serviceUser: string;
    accessKey: string;
  };
  const answer = await fetch(line.webhookUrl.replace('localhost', '127.0.0.1'), {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${credentials.serviceUser}:${credentials.accessKey}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: `{"activity": "cards.check", "secret": "${secret}", "payload": {"card": "${card}"}}`,
  });
  if (answer.status !== 200) throw new Error(`the webhook call failed: ${answer.status} ${await answer.text()}`);
  execution = { workflowId: answer.headers.get('x-flowhook-execution-id')!, card };
});
test.after.always(async () => {
  if (started) await stopFlowhook(started);
});

test('start points the Web UI at the codec server; a signed-in operator decodes what the UI server shows as ciphertext', async (t) => {
  const ui = line.temporalUiUrl;
  const { card, workflowId } = execution;
  t.is(line.codecUrl, `http://127.0.0.1:${codecPort}`);
  t.is(line.codecLoginUrl, `${line.codecUrl}/login`);
  // The UI learns its codec endpoint from the settings its server hands the page.
  const settings = (await (await fetch(`${ui}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
  t.is(settings.Codec.Endpoint, line.codecUrl);

  // The history as the UI's page fetches it from its server: ciphertext.
  const history = (await (
    await fetch(`${ui}/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}/history`)
  ).json()) as {
    history: { events: { workflowExecutionStartedEventAttributes?: { input: { payloads: WirePayload[] } } }[] };
  };
  const input = history.history.events.find((event) => event.workflowExecutionStartedEventAttributes)!
    .workflowExecutionStartedEventAttributes!.input.payloads;
  t.is(text(input[0]!.metadata!.encoding), 'binary/encrypted');
  t.false(text(input[0]!.data).includes(card));

  const decode = (cookie?: string) =>
    fetch(`${line.codecUrl}/decode?preserveStorageRefs=true`, {
      method: 'POST',
      headers: {
        origin: ui,
        'content-type': 'application/json',
        'x-namespace': 'default',
        ...(cookie ? { cookie } : {}),
      },
      body: JSON.stringify({ payloads: input }),
    });
  t.is((await decode()).status, 401, 'not before the operator signs in');

  const signedIn = await fetch(`${line.codecUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: line.codecUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: adminToken }).toString(),
  });
  t.is(signedIn.status, 303);
  const cookie = /^(flowhook_codec_session=[^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1]!;
  const preflight = await fetch(`${line.codecUrl}/decode?preserveStorageRefs=true`, {
    method: 'OPTIONS',
    headers: {
      origin: ui,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-namespace',
    },
  });
  t.is(preflight.headers.get('access-control-allow-origin'), ui);
  const decoded = await decode(cookie);
  t.is(decoded.status, 200);
  t.true(text(((await decoded.json()) as { payloads: WirePayload[] }).payloads[0]!.data).includes(card));

  // Every decode is logged with who and how many, never with the payload.
  const decodeLine =
    /"operator":"flowhook-cli","via":"session","namespace":"default","payloads":1,"decrypted":1[^\n]*"msg":"codec server: decode"/;
  t.regex(
    await eventually(() => started.output(), {
      until: (output) => decodeLine.test(output),
      what: 'the decode logged',
      show: () => 'no decode line',
    }),
    decodeLine,
  );
  t.false(started.output().includes(card));
  t.false(started.output().includes(adminToken));
});

test('in the real Web UI (headless Chromium) the payload is ciphertext until the operator signs in on the codec page, then readable', async (t) => {
  const ui = line.temporalUiUrl;
  const { card, workflowId } = execution;
  const shots = SCREENSHOTS;
  mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    // What the UI's codec settings dialog stores when the operator chooses the browser setting,
    // enters the endpoint and turns on "Include cross-origin credentials".
    await page.goto(`${ui}/namespaces/default/workflows`);
    await page.evaluate((endpoint) => {
      localStorage.setItem('overrideRemoteCodecConfiguration', 'true');
      localStorage.setItem('endpoint', JSON.stringify(endpoint));
      localStorage.setItem('includeCredentials', 'true');
      localStorage.setItem('passAccessToken', 'false');
    }, line.codecUrl);
    const executionPage = `${ui}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;

    await page.goto(executionPage);
    try {
      await page.getByText(workflowId, { exact: false }).first().waitFor({ timeout: 30_000 });
    } catch (error) {
      await page.screenshot({ path: join(shots, '0-no-page.png'), fullPage: true });
      t.log(page.url(), (await page.locator('body').innerText()).slice(0, 3000), shots);
      throw error;
    }
    // Once the UI shows the codec server's refusal it has asked for the payload and been told no.
    const before = await eventually(() => page.locator('body').innerText(), {
      until: (text) => /codec server/i.test(text),
      timeoutMs: 30_000,
      intervalMs: 250,
      what: "the UI showing the codec server's refusal",
    });
    await page.screenshot({ path: join(shots, '1-before-sign-in.png'), fullPage: true });
    t.false(before.includes(card), 'ciphertext before signing in');
    // The UI did ask the codec server and was refused (it shows the codec error, not a missing endpoint).
    t.regex(before, /codec server/i);

    await page.goto(line.codecLoginUrl);
    await page.fill('#token', adminToken);
    await page.click('button[type=submit]');
    await page.getByText('Signed in as').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(shots, '2-signed-in.png'), fullPage: true });

    await page.goto(executionPage);
    await page.getByText(card, { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, '3-decoded.png'), fullPage: true });
    t.log(`screenshots: ${shots}`);
    t.pass();
  } finally {
    await browser.close();
  }
});
