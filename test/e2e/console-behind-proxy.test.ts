// A console beyond loopback: the listener speaks cleartext to a proxy that
// terminates TLS (FLOWHOOK_CONSOLE_INSECURE=true) and browsers open the https
// FLOWHOOK_CONSOLE_PUBLIC_URL. Its origin is that URL's and nothing a request
// says (Host is whatever the proxy sends); its cookies are Secure and
// `__Host-` prefixed; every answer carries HSTS. Without an https public URL a
// non-loopback console does not start, and says which setting opens it.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { readEngineConfig } from '../../engine/config.ts';
import { ConsolePage } from '../support/console-page.ts';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));
const PUBLIC = 'https://console.flowhook.test';

let stack: TestStack;
let idp: TestOidcProvider;
/** Where the proxy sends the console's requests. */
let listener: string;

test.before(async () => {
  const port = await findFreePort();
  listener = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({
    clientId: 'flowhook-console',
    redirectUri: `${PUBLIC}/auth/oidc/callback`,
    people: [],
  });
  stack = await startStack({
    env: {
      FLOWHOOK_CONSOLE_PORT: String(port),
      FLOWHOOK_CONSOLE_HOST: '0.0.0.0',
      FLOWHOOK_CONSOLE_INSECURE: 'true',
      FLOWHOOK_CONSOLE_PUBLIC_URL: PUBLIC,
      FLOWHOOK_CONSOLE_OIDC_ISSUER: idp.issuer,
      FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: 'flowhook-console',
    },
  });
});
test.after.always(async () => {
  await stack?.close();
  await idp?.close();
});

/** A request as the TLS proxy forwards it: to the listener, with the Host the proxy chooses. */
function forwarded(
  path: string,
  options: { method?: string; host?: string; origin?: string; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host: options.host ?? 'console.flowhook.test',
      'content-type': 'application/json',
      'connect-protocol-version': '1',
    };
    if (options.origin) headers.origin = options.origin;
    const outgoing = request(`${listener}${path}`, { method: options.method ?? 'GET', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

test('behind a proxy that terminates TLS: Secure `__Host-` cookies, HSTS, and the public URL as the only origin', async (t) => {
  t.is(stack.engine.console!.url, PUBLIC, 'the banner names the public URL');
  const signIn = (origin: string) =>
    forwarded('/flowhook.engine.v1.ConsoleService/SignIn', {
      method: 'POST',
      origin,
      body: JSON.stringify({ adminToken: stack.adminToken }),
    });
  const signedIn = await signIn(PUBLIC);
  t.is(signedIn.status, 200);
  const [cookie] = signedIn.headers['set-cookie'] as string[];
  t.regex(
    cookie!,
    /^__Host-flowhook-console=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict; Secure$/,
  );
  t.is(signedIn.headers['strict-transport-security'], 'max-age=31536000');

  // The listener's own address, as the Host header names it, is not an origin of the console.
  for (const origin of [listener, 'http://console.flowhook.test', 'https://attacker.example']) {
    const refused = await forwarded('/flowhook.engine.v1.ConsoleService/SignIn', {
      method: 'POST',
      origin,
      host: new URL(origin).host,
      body: JSON.stringify({ adminToken: stack.adminToken }),
    });
    t.is(refused.status, 403, origin);
    t.is(refused.headers['set-cookie'], undefined);
  }
  const page = await forwarded('/', { host: 'anything.example' });
  t.is(page.headers['strict-transport-security'], 'max-age=31536000', 'pages carry HSTS too');

  // A page of the console signs in through it as a browser would, at the public origin.
  const browser = new ConsolePage(listener);
  const answer = await browser.call(
    'flowhook.engine.v1.ConsoleService',
    'SignIn',
    { adminToken: stack.adminToken },
    { origin: PUBLIC },
  );
  t.is(answer.status, 200);
  browser.csrf = answer.json.csrfToken as string;
  t.is((await browser.flowAdmin('ListCompanies', {}, { origin: PUBLIC })).status, 200);
});

test('the OpenID Connect redirect goes to the public URL whatever the Host, with a Secure `__Host-` login cookie', async (t) => {
  const started = await forwarded('/auth/oidc/start', { host: 'attacker.example' });
  t.is(started.status, 303);
  const location = new URL(String(started.headers.location));
  t.is(location.searchParams.get('redirect_uri'), `${PUBLIC}/auth/oidc/callback`);
  t.regex(
    String((started.headers['set-cookie'] as string[])[0]),
    /^__Host-flowhook-console-login=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
  );
});

test('beyond loopback without an https public URL the engine does not start, and says which setting opens it', async (t) => {
  const { FLOWHOOK_CONSOLE_PUBLIC_URL: _public, ...rest } = stack.env;
  const env = {
    ...rest,
    FLOWHOOK_ENGINE_PORT: '0',
    FLOWHOOK_CONSOLE_PORT: '0',
    FLOWHOOK_CONSOLE_HOST: '0.0.0.0',
    FLOWHOOK_CONSOLE_INSECURE: 'true',
  };
  t.throws(() => readEngineConfig(env), {
    message: /with no FLOWHOOK_CONSOLE_PUBLIC_URL[\s\S]*Set FLOWHOOK_CONSOLE_PUBLIC_URL to the https URL people open/,
  });
  const child = spawn(process.execPath, [FLOWHOOK, 'engine'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.not(code, 0);
  t.regex(output, /FLOWHOOK_CONSOLE_PUBLIC_URL/);
  t.false(output.includes(stack.adminToken), 'the refusal quotes no token');
});
