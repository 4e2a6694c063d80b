// What a callback hands the step besides its body: the headers without
// credentials and proxy details, and the body as exact UTF-8 text. Also the
// rules the worker's callback requests must meet (step names, the activity an
// execution id names).
import test from 'ava';
import { deliveredHeaders } from '../../engine/domain/callbacks/callback-headers.ts';
import { isWithheldCallbackHeader as isWithheldHeader } from '../../flow/withheld-headers.ts';
import { callbackBodyText } from '../../engine/domain/callbacks/deliver-callback.ts';
import { CallbackInvalidError } from '../../engine/domain/callbacks/callback-refusals.ts';
import { activityOfExecution, checkStepName } from '../../engine/domain/callbacks/callback-scope.ts';
import { InvalidArgumentError } from '../../engine/errors.ts';

const header = (name: string, value: string) => ({ name, value }) as never;

test('headers reach the step lower-cased, repeated ones joined, without credentials and what proxies added', (t) => {
  const delivered = deliveredHeaders([
    header('Content-Type', 'application/json'),
    header('X-PSP-Signature', 'sig-1'),
    header('Authorization', 'Bearer secret'),
    header('Cookie', 'session=1'),
    header('Proxy-Authorization', 'Basic x'),
    header('Host', 'hooks.example.com'),
    header('Forwarded', 'for=10.0.0.1'),
    header('X-Forwarded-For', '10.0.0.1'),
    header('X-Forwarded-Proto', 'https'),
    header('X-Trace', 'a'),
    header('x-trace', 'b'),
  ]);
  t.deepEqual(delivered, { 'content-type': 'application/json', 'x-psp-signature': 'sig-1', 'x-trace': 'a, b' });
});

test('a header named __proto__ stays a plain member', (t) => {
  const delivered = deliveredHeaders([header('__proto__', 'x')]);
  t.is(Object.getPrototypeOf(delivered), Object.prototype);
  t.deepEqual(Object.keys(delivered), ['__proto__']);
  t.is(Object.getOwnPropertyDescriptor(delivered, '__proto__')?.value, 'x');
});

test('the withheld names: credentials, host, forwarded and every x-forwarded-*', (t) => {
  for (const name of [
    'authorization',
    'cookie',
    'proxy-authorization',
    'host',
    'forwarded',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-forwarded-anything',
  ])
    t.true(isWithheldHeader(name), name);
  for (const name of ['content-type', 'x-forwarded', 'x-request-id', 'user-agent', 'webhook-signature'])
    t.false(isWithheldHeader(name), name);
});

test('the body is the exact UTF-8 text, a byte order mark included', (t) => {
  t.is(callbackBodyText(Buffer.from('{ "amount": 1.10 }')), '{ "amount": 1.10 }');
  t.is(callbackBodyText(Buffer.from([0xef, 0xbb, 0xbf, 0x61])), '\ufeffa');
  t.is(callbackBodyText(new Uint8Array()), '');
  t.is(callbackBodyText(Buffer.from('grüße ✓')), 'grüße ✓');
});

test('a body that is not UTF-8 is refused as invalid, with the reason for the log', (t) => {
  const error = t.throws(() => callbackBodyText(Buffer.from([0x7b, 0xff, 0x7d])));
  t.true(error instanceof CallbackInvalidError);
  t.true(error instanceof InvalidArgumentError);
  t.is(error!.message, 'callback bodies must be UTF-8 text');
  t.is((error as CallbackInvalidError).refusal.reason, 'body_not_utf8');
});

test('JSON nested deeper than the trigger allows is refused; text with as many brackets that is no JSON is not', (t) => {
  const deep = `${'['.repeat(101)}${']'.repeat(101)}`;
  const error = t.throws(() => callbackBodyText(Buffer.from(deep)));
  t.is((error as CallbackInvalidError).refusal.reason, 'body_too_deep');
  t.is(callbackBodyText(Buffer.from(`${'['.repeat(100)}${']'.repeat(100)}`)).length, 200);
  t.is(callbackBodyText(Buffer.from(`note: ${'['.repeat(150)}`)).length, 156);
});

test('the activity of an execution id is what precedes its last colon', (t) => {
  t.is(activityOfExecution('orders.ship:0f8fad5b-d9cb-469f-a165-70867728950e'), 'orders.ship');
  t.is(activityOfExecution(`orders.ship:key-${'a'.repeat(40)}`), 'orders.ship');
  t.is(activityOfExecution('orders.ship:rerun-0f8fad5b-d9cb-469f-a165-70867728950e'), 'orders.ship');
  t.is(activityOfExecution('ns:orders:0f8fad5b-d9cb-469f-a165-70867728950e'), 'ns:orders');
  t.is(activityOfExecution('no-colon'), '');
  t.is(activityOfExecution(':x'), '');
});

test('callback steps are named as flow steps are', (t) => {
  for (const step of ['payment', '_x', 'Step_2']) t.notThrows(() => checkStepName(step), step);
  for (const step of ['', '2nd', 'a-b', 'a.b', 'a b', 'x'.repeat(201)])
    t.throws(() => checkStepName(step), { instanceOf: InvalidArgumentError }, step);
});
