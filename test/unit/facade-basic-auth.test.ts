import test from 'ava';
import { parseBasicAuthorization } from '../../facade/basic-auth.ts';

const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

test('user name and access key are read from a Basic header', (t) => {
  t.deepEqual(parseBasicAuthorization(basic('svc-user:k3y/with+chars=')), {
    userName: 'svc-user',
    accessKey: 'k3y/with+chars=',
  });
});

test('the key may contain colons; the user name ends at the first one', (t) => {
  t.deepEqual(parseBasicAuthorization(basic('user:a:b:c')), { userName: 'user', accessKey: 'a:b:c' });
});

test('the scheme is case-insensitive and UTF-8 names are decoded', (t) => {
  t.deepEqual(parseBasicAuthorization(`bAsIc ${Buffer.from('jürgen:schlüssel').toString('base64')}`), {
    userName: 'jürgen',
    accessKey: 'schlüssel',
  });
});

test('absent and malformed headers yield no credentials', (t) => {
  const cases = [
    undefined,
    '',
    'Basic',
    'Basic ',
    'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x',
    'Digest username="u"',
    'Basic !!!notbase64!!!',
    'Basic dXNlcjprZXk', // padding missing
    'Basic dXNlcjprZXk= extra',
    basic('no-colon'),
    basic(':key-without-user'),
    basic('user-without-key:'),
    basic('user:key\nwith-newline'),
    `Basic ${Buffer.from([0x75, 0x3a, 0xff, 0xfe]).toString('base64')}`, // not UTF-8
  ];
  for (const header of cases) t.is(parseBasicAuthorization(header), undefined, String(header));
});
