// A Bearer-only deployment (FLOWHOOK_BASIC_AUTH=off with trusted issuers), as
// `flowhook facade` runs it: a caller sending Basic credentials is refused by
// the facade itself, and the 401 challenges Bearer only — it never invites
// credentials this deployment would refuse. No engine is needed: the facade
// answers before it would call one.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { findFreePort } from '../../bin/embedded/free-port.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));

async function withFacade(env: Record<string, string>, use: (url: string) => Promise<void>): Promise<void> {
  const port = await findFreePort();
  const child = spawn(process.execPath, [FLOWHOOK, 'facade'], {
    env: {
      PATH: process.env.PATH ?? '',
      FLOWHOOK_FACADE_PORT: String(port),
      FLOWHOOK_FACADE_HOST: '127.0.0.1',
      FLOWHOOK_ENGINE_URL: 'http://127.0.0.1:1',
      FLOWHOOK_ENGINE_TOKEN: 'fhsa_not-a-real-token-for-this-test',
      FLOWHOOK_OAUTH_ISSUERS: 'https://idp.example.test',
      FLOWHOOK_OAUTH_AUDIENCE: 'api://flowhook',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the facade did not start: ${output}`)), 30_000);
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('facade listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => reject(new Error(`the facade exited (${code}): ${output}`)));
    });
    await use(`http://127.0.0.1:${port}/BC/ODataV4/flowWebhook_Invoke?company=Acme`);
  } finally {
    child.kill('SIGTERM');
  }
}

const basicCall = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('svc:some-access-key').toString('base64')}` },
    body: JSON.stringify({ activity: 'orders.created', secret: 'x'.repeat(32), payload: {} }),
  });

test('FLOWHOOK_BASIC_AUTH=off: Basic credentials get 401 from the facade, and the challenge names Bearer only', async (t) => {
  await withFacade({ FLOWHOOK_BASIC_AUTH: 'off' }, async (url) => {
    const response = await basicCall(url);
    t.is(response.status, 401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    t.regex(challenge, /^Bearer\b/);
    t.notRegex(challenge, /Basic/);
  });
});

test('by default the same deployment challenges Bearer and Basic', async (t) => {
  await withFacade({}, async (url) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    t.is(response.status, 401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    t.regex(challenge, /Bearer/);
    t.regex(challenge, /Basic/);
  });
});
