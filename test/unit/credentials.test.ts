import test from 'ava';
import { generateRandomText, matchesHash, SECRET_LENGTH, sha256Hex } from '../../engine/domain/callers/credentials.ts';

test('generated secrets have 32 characters from [A-Za-z0-9] and differ', (t) => {
  const secrets = new Set(Array.from({ length: 200 }, () => generateRandomText(SECRET_LENGTH)));
  t.is(secrets.size, 200);
  for (const secret of secrets) t.regex(secret, /^[A-Za-z0-9]{32}$/);
});

test('a secret matches only its own SHA-256 hash', (t) => {
  const hash = sha256Hex('correct horse');
  t.is(hash, '4104d36f8da2c254349f85836793ebe029e0c957063a34c91c2e9203187b5631');
  t.true(matchesHash('correct horse', hash));
  t.false(matchesHash('correct horse ', hash));
  t.false(matchesHash('', hash));
  t.false(matchesHash('correct horse', null));
  t.false(matchesHash('correct horse', 'not-hex'));
});

test('tokens compare by value', (t) => {
  t.true(matchesHash('a-long-admin-token', sha256Hex('a-long-admin-token')));
  t.false(matchesHash('a-long-admin-tokeN', sha256Hex('a-long-admin-token')));
});
