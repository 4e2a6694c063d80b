// A Bearer-only deployment (FLOWHOOK_BASIC_AUTH=off with trusted issuers), as
// `flowhook facade` runs it: a caller sending Basic credentials is refused by
// the facade itself, and the 401 challenges Bearer only — it never invites
// credentials this deployment would refuse. No engine is needed: the facade
// answers before it would call one.
import test from 'ava';
import { withLoneFacade } from '../support/lone-facade.ts';

const TRUSTED_ISSUER = {
  FLOWHOOK_OAUTH_ISSUERS: 'https://idp.example.test',
  FLOWHOOK_OAUTH_AUDIENCE: 'api://flowhook',
};
const withFacade = (env: Record<string, string>, use: (url: string) => Promise<void>) =>
  withLoneFacade({ ...TRUSTED_ISSUER, ...env }, ({ url }) => use(`${url}/BC/ODataV4/flowWebhook_Invoke?company=Acme`));

const basicCall = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from('svc:some-access-key').toString('base64')}`,
    },
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
