// Failed sign-ins to the console are held back, over real HTTP against a real
// engine: after five wrong admin tokens from one address each further attempt
// waits (429, Connect `resource_exhausted`, Retry-After) and is not even
// checked — the right token too — until the wait is over; another address is
// not held back; every refusal is counted in
// flowhook_engine_console_sign_ins_refused_total. The session row of an
// admin-token sign-in keeps a keyed hash of the token, never its SHA-256.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import test from 'ava';
import { ConsolePage } from '../support/console-page.ts';
import { sample, scrape } from '../support/metrics-samples.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let consoleUrl: string;
let metricsUrl: string;

test.before(async () => {
  stack = await startStack({ env: { FLOWHOOK_CONSOLE_PORT: '0' } });
  consoleUrl = stack.engine.console!.url;
  metricsUrl = `http://127.0.0.1:${stack.engine.metrics!.port}/metrics`;
});
test.after.always(async () => {
  await stack?.close();
});

interface Answer {
  status: number;
  retryAfter?: string;
  setCookie: string[];
  json: Record<string, unknown>;
}

/** SignIn as the console's page makes it, from one loopback address (127.0.0.0/8 is all this machine): each address a sender of its own. */
function signInFrom(localAddress: string, adminToken: string): Promise<Answer> {
  const url = new URL(`${consoleUrl}/flowhook.engine.v1.ConsoleService/SignIn`);
  const headers = {
    'content-type': 'application/json',
    'connect-protocol-version': '1',
    origin: url.origin,
    'sec-fetch-site': 'same-origin',
  };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers, localAddress }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          setCookie: response.headers['set-cookie'] ?? [],
          json: body ? (JSON.parse(body) as Record<string, unknown>) : {},
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify({ adminToken }));
  });
}

const refusals = async () => {
  const text = await scrape(metricsUrl);
  const of = (reason: string) => sample(text, 'flowhook_engine_console_sign_ins_refused_total', { reason });
  return { wrong: of('wrong_token'), sender: of('sender_backoff'), deployment: of('deployment_budget') };
};

test('after five wrong tokens from one address, sign-in waits (429 with Retry-After, the token unchecked); other addresses are not held back', async (t) => {
  const before = await refusals();
  for (let i = 0; i < 5; i++)
    t.is((await signInFrom('127.0.0.2', `wrong-token-number-${i}-of-thirty-two-chars`)).status, 401);
  const held = await signInFrom('127.0.0.2', stack.adminToken);
  t.is(held.status, 429, JSON.stringify(held.json));
  t.is(held.json.code, 'resource_exhausted');
  t.regex(String(held.json.message), /Too many failed sign-ins from your address: try again in 1 s/);
  t.is(held.retryAfter, '1');
  t.deepEqual(held.setCookie, [], 'the right token is not even checked: no session');

  const elsewhere = await signInFrom('127.0.0.3', stack.adminToken);
  t.is(elsewhere.status, 200, 'another address signs in');
  t.is(elsewhere.setCookie.length, 1);

  await new Promise((resolve) => setTimeout(resolve, Number(held.retryAfter) * 1000 + 100));
  t.is(
    (await signInFrom('127.0.0.2', `wrong-token-number-6-of-thirty-two-chars`)).status,
    401,
    'after the wait one more try: still wrong',
  );
  const longer = await signInFrom('127.0.0.2', stack.adminToken);
  t.is(longer.status, 429);
  t.is(longer.retryAfter, '2', 'the wait doubles');
  await new Promise((resolve) => setTimeout(resolve, 2100));
  t.is((await signInFrom('127.0.0.2', stack.adminToken)).status, 200, 'after the wait the right token signs in');

  const after = await refusals();
  t.deepEqual(
    {
      wrong: after.wrong - before.wrong,
      sender: after.sender - before.sender,
      deployment: after.deployment - before.deployment,
    },
    { wrong: 6, sender: 2, deployment: 0 },
  );
});

test("an admin-token session's row keeps a keyed hash of the token, neither the token nor its SHA-256, and still ends when the token is rotated", async (t) => {
  const account = await stack.admin.createServiceAccount({
    name: 'keyed-hash-person',
    scope: 'admin',
    companies: [],
    allCompanies: false,
    forwardsCallers: false,
  });
  const page = new ConsolePage(consoleUrl);
  t.is((await page.signIn(account.token)).status, 200);
  const rows = await stack.engine.orm.em
    .getConnection()
    .execute<Record<string, unknown>[]>(`select * from console_session where person = 'keyed-hash-person'`);
  t.is(rows.length, 1);
  const stored = JSON.stringify(rows[0]);
  const sha256 = createHash('sha256').update(account.token).digest('hex');
  t.false(stored.includes(account.token));
  t.false(stored.includes(sha256), 'the unsalted SHA-256 of the token is not in the row');
  t.false('token_hash' in rows[0]!);
  t.regex(String(rows[0]!.token_mac), /^[A-Za-z0-9_-]{43}$/);
  t.is((await page.flowAdmin('ListCompanies')).status, 200);
  await stack.admin.rotateServiceAccountToken({ name: 'keyed-hash-person' });
  t.is((await page.flowAdmin('ListCompanies')).status, 401, 'a rotated token ends the session');
});
