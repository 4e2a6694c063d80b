// The remote codec protocol's JSON (proto3 mapping: bytes as base64) and the
// codec server's CORS rules, as pure functions.
import test from 'ava';
import { corsHeaders, judgeOrigin, preflightHeaders } from '../../engine/edges/codec/codec-cors.ts';
import {
  CodecRequestError,
  MAX_PAYLOADS,
  parseCodecRequest,
  serializeCodecResponse,
  toWire,
} from '../../engine/edges/codec/codec-protocol.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

test('payloads are read from base64 metadata and data, standard or URL-safe', (t) => {
  const [first, second] = parseCodecRequest(
    JSON.stringify({
      payloads: [
        { metadata: { encoding: b64('json/plain') }, data: b64('{"a":1}') },
        { data: Buffer.from([0xfb, 0xff]).toString('base64url') },
      ],
    }),
  );
  t.is(Buffer.from(first!.payload.metadata!.encoding!).toString(), 'json/plain');
  t.is(Buffer.from(first!.payload.data!).toString(), '{"a":1}');
  t.deepEqual([...second!.payload.data!], [0xfb, 0xff]);
});

test('an empty Payloads message is `{}` in proto3 JSON (the CLI sends it)', (t) => {
  t.deepEqual(parseCodecRequest('{}'), []);
  t.deepEqual(parseCodecRequest('{"payloads": []}'), []);
});

test('wrong shapes are refused with the place named', (t) => {
  const refusals: [string, RegExp][] = [
    ['not json', /must be JSON/],
    ['[]', /"payloads" array/],
    ['{"payloads": {}}', /"payloads" array/],
    ['{"payloads": [null]}', /payloads\[0\] must be an object/],
    ['{"payloads": [{"metadata": []}]}', /payloads\[0\]\.metadata must be an object/],
    ['{"payloads": [{}, {"metadata": {"encoding": 7}}]}', /payloads\[1\]\.metadata\.encoding must be a base64 string/],
    ['{"payloads": [{"data": "no spaces allowed"}]}', /payloads\[0\]\.data must be a base64 string/],
  ];
  for (const [body, message] of refusals)
    t.throws(() => parseCodecRequest(body), { instanceOf: CodecRequestError, message }, body);
  t.throws(
    () => parseCodecRequest(JSON.stringify({ payloads: Array.from({ length: MAX_PAYLOADS + 1 }, () => ({})) })),
    { message: /at most/ },
  );
});

test('payloads the codec left alone go back exactly as they came, unknown fields included', (t) => {
  const raw = { metadata: { encoding: b64('json/plain') }, data: b64('1'), externalPayloads: [{ sizeBytes: '3' }] };
  const [item] = parseCodecRequest(JSON.stringify({ payloads: [raw] }));
  const changed = {
    metadata: { encoding: new TextEncoder().encode('json/plain') },
    data: new TextEncoder().encode('2'),
  };
  t.deepEqual(
    JSON.parse(
      serializeCodecResponse([
        { ...item!, changed: false },
        { payload: changed, raw: {}, changed: true },
      ]),
    ),
    {
      payloads: [raw, { metadata: { encoding: b64('json/plain') }, data: b64('2') }],
    },
  );
  t.deepEqual(toWire({}), {});
});

test('CORS: only listed origins, echoed exactly with credentials; a request without Origin is not a browser page', (t) => {
  const allowed = ['http://127.0.0.1:8233'];
  t.is(judgeOrigin(undefined, allowed), 'none');
  t.is(judgeOrigin('http://127.0.0.1:8233', allowed), 'allowed');
  t.is(judgeOrigin('http://localhost:8233', allowed), 'refused');
  t.is(judgeOrigin('null', allowed), 'refused');
  t.deepEqual(corsHeaders('http://127.0.0.1:8233'), {
    'access-control-allow-origin': 'http://127.0.0.1:8233',
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
  });
  const preflight = preflightHeaders('http://127.0.0.1:8233', true);
  t.regex(preflight['access-control-allow-headers']!, /content-type, x-namespace, authorization/);
  t.is(preflight['access-control-allow-private-network'], 'true');
  t.false('access-control-allow-private-network' in preflightHeaders('http://127.0.0.1:8233', false));
});
