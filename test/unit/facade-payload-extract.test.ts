import test from 'ava';
import { BadRequestError } from '../../facade/http-errors.ts';
import { extractPayloadText, scanTopLevelMembers } from '../../facade/payload-extract.ts';

const body = (payload: string, before = '"activity": "a", "secret": "s", ') => `{${before}"payload": ${payload}}`;

test('a big integer keeps every digit', (t) => {
  const payload = '{"amount": 123456789012345678901234567890}';
  t.is(extractPayloadText(body(payload)), payload);
});

test('number spelling, odd spacing and key order are kept as sent', (t) => {
  const payload = '{ "z" :1.0E+2,\n\t"a":[ 1 , -0.50 ,2e-3 ],"m" : {"b":true ,"a":null}\r\n}';
  t.is(extractPayloadText(body(payload)), payload);
});

test('unicode escapes and non-ASCII text stay as written', (t) => {
  const payload = '{"name":"caf\\u00e9 \\ud83d\\ude00","city":"Zürich 🚀"}';
  t.is(extractPayloadText(body(payload)), payload);
});

test('strings holding braces, brackets, quotes and backslashes do not end the value', (t) => {
  const payload = '{"a":"} ] { [","b":"say \\"}\\" ok","c":"back\\\\","d":{"e":"\\\\\\"}"}}';
  t.is(extractPayloadText(body(payload)), payload);
  t.is(JSON.stringify(JSON.parse(payload)), payload);
});

test('payload may come first, last or between other members', (t) => {
  const payload = '{"x":1}';
  t.is(extractPayloadText(`{"payload":${payload},"activity":"a","secret":"s"}`), payload);
  t.is(extractPayloadText(`{"activity":"a","payload":${payload},"secret":"s"}`), payload);
});

test('an escaped key is decoded before it is compared', (t) => {
  const payload = '{"x":1}';
  t.is(extractPayloadText('{"activity":"a","secret":"s","pay\\u006coad":' + payload + '}'), payload);
});

test('a member whose key merely contains "payload" is not the payload', (t) => {
  t.is(extractPayloadText('{"payloads":{"no":1},"payload":{"yes":2},"meta":{"payload":{"nested":3}}}'), '{"yes":2}');
});

test('an empty payload object is returned as is', (t) => {
  t.is(extractPayloadText(body('{ }')), '{ }');
});

test('a deeply nested payload does not overflow the stack: up to the bound it is cut out exactly, beyond it refused', (t) => {
  // body(…) is level 1 and the payload object level 2, so 98 more levels reach the bound of 100.
  const atBound = `{"a":${'['.repeat(98)}${']'.repeat(98)}}`;
  t.is(extractPayloadText(body(atBound)), atBound);
  const tooDeep = `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
  t.throws(() => extractPayloadText(body(tooDeep)), { instanceOf: BadRequestError, message: /deeper than 100 levels/ });
});

test('a duplicate payload, activity or secret is refused', (t) => {
  for (const key of ['payload', 'activity', 'secret']) {
    const text = `{"activity":"a","secret":"s","payload":{},"${key}":${key === 'payload' ? '{}' : '"b"'}}`;
    const error = t.throws(() => extractPayloadText(text), { instanceOf: BadRequestError });
    t.is(error?.message, `duplicate member "${key}" in the request body`);
  }
  // Duplicates hidden behind an escape are duplicates too.
  t.throws(() => extractPayloadText('{"payload":{},"p\\u0061yload":{}}'), { message: /duplicate member "payload"/ });
});

test('duplicates of members nobody reads are accepted', (t) => {
  t.is(extractPayloadText('{"extra":1,"extra":2,"payload":{"k":1}}'), '{"k":1}');
});

test('a missing payload is refused', (t) => {
  t.throws(() => extractPayloadText('{"activity":"a","secret":"s"}'), {
    instanceOf: BadRequestError,
    message: /payload is required/,
  });
  t.throws(() => extractPayloadText('{}'), { message: /payload is required/ });
});

test('a payload that is not an object is refused', (t) => {
  for (const payload of ['[1,2]', 'null', '"text"', '42', 'true']) {
    t.throws(
      () => extractPayloadText(body(payload)),
      { instanceOf: BadRequestError, message: 'payload must be a JSON object' },
      payload,
    );
  }
});

test('a body that is not an object is refused', (t) => {
  t.throws(() => extractPayloadText('[{"payload":{}}]'), { message: /must be a JSON object/ });
});

test('malformed text fails closed', (t) => {
  for (const text of [
    '{"payload":{"a":1]}',
    '{"payload":{}',
    '{"payload":{}} x',
    '{"payload" {}}',
    '{"payload":{},}',
    '{"payload":tru}',
    '{"payload":"\n"}',
  ]) {
    t.throws(() => extractPayloadText(text), { instanceOf: BadRequestError }, JSON.stringify(text));
  }
});

test('the scan lists members with their value offsets', (t) => {
  const text = ' {"a" : 1 , "b":"x"} ';
  t.deepEqual(
    scanTopLevelMembers(text).map((m) => [m.key, text.slice(m.start, m.end)]),
    [
      ['a', '1'],
      ['b', '"x"'],
    ],
  );
});
