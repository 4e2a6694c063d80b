import test from 'ava';
import { withoutTrailingSlashes } from '../../common/trailing-slashes.ts';
import { normalizeIssuer } from '../../engine/domain/callers/application-issuer.ts';

test('trailing slashes go, nothing else does', (t) => {
  t.is(withoutTrailingSlashes('https://idp.example/tenant///'), 'https://idp.example/tenant');
  t.is(withoutTrailingSlashes('https://idp.example/tenant'), 'https://idp.example/tenant');
  t.is(withoutTrailingSlashes('///'), '');
  t.is(withoutTrailingSlashes(''), '');
  t.is(normalizeIssuer(' https://sts.windows.net/tenant/ '), 'https://sts.windows.net/tenant');
});

test("an issuer of many slashes that do not end it is read in one pass (a token's iss is the caller's text)", (t) => {
  const iss = `https://${'/'.repeat(200_000)}x`;
  t.is(normalizeIssuer(iss), iss);
});
