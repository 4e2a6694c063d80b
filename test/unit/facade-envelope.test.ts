import test from 'ava';
import { metadataUrl, odataError, webhookEnvelope } from '../../facade/odata-envelope.ts';

const target = { publicUrl: 'https://api.example.com/bc', instance: 'BC' };

test('the envelope has the OData context and a value holding JSON text', (t) => {
  const text = webhookEnvelope(target, { statusCode: 201, contentType: 'application/json', body: '{"ok":true}' });
  t.is(
    text,
    '{"@odata.context":"https://api.example.com/bc/BC/ODataV4/$metadata#Edm.String","value":"{\\"statusCode\\":201,\\"contentType\\":\\"application/json\\",\\"body\\":\\"{\\\\\\"ok\\\\\\":true}\\"}"}',
  );
  const envelope = JSON.parse(text);
  t.deepEqual(Object.keys(envelope), ['@odata.context', 'value']);
  t.is(typeof envelope.value, 'string');
  t.deepEqual(JSON.parse(envelope.value), { statusCode: 201, contentType: 'application/json', body: '{"ok":true}' });
});

test('value keys are always statusCode, contentType, body in that order', (t) => {
  const response = { body: '', contentType: 'text/plain', statusCode: 200 };
  const value = JSON.parse(webhookEnvelope(target, response)).value as string;
  t.is(value, '{"statusCode":200,"contentType":"text/plain","body":""}');
});

test('a flow-chosen error status travels inside value', (t) => {
  const value = JSON.parse(
    JSON.parse(webhookEnvelope(target, { statusCode: 422, contentType: 'application/xml', body: '<e>bad</e>' })).value,
  );
  t.is(value.statusCode, 422);
  t.is(value.body, '<e>bad</e>');
});

test('body text with quotes, newlines and non-ASCII survives both parses', (t) => {
  const body = 'line "one"\nline\ttwo \u2028 — ü 🚀 \\';
  const value = JSON.parse(
    JSON.parse(webhookEnvelope(target, { statusCode: 200, contentType: 'text/plain', body })).value,
  );
  t.is(value.body, body);
});

test('the metadata URL is built from public URL and instance', (t) => {
  t.is(
    metadataUrl({ publicUrl: 'http://localhost:7048', instance: 'BC' }),
    'http://localhost:7048/BC/ODataV4/$metadata',
  );
});

test('the error body has the OData error shape', (t) => {
  t.is(odataError('NotFound', 'No flow "x"'), '{"error":{"code":"NotFound","message":"No flow \\"x\\""}}');
});
