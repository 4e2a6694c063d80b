// The callback inbox of one execution: a delivery is held until its step takes
// it (also when it came before the step waited), each step takes one callback
// ever, a timed-out step takes none, and the refusals carry the types the
// engine maps to HTTP answers (flow/callback-contract.ts).
import test from 'ava';
import { CALLBACK_ALREADY_RECEIVED, CALLBACK_EXPIRED, CALLBACK_UNKNOWN_STEP } from '../../flow/index.ts';
import { CALLBACK_MALFORMED, CallbackInbox } from '../../workflows/interpreter/callback-inbox.ts';

const inbox = () =>
  new CallbackInbox(
    new Map([
      ['payment', 200],
      ['order', 202],
    ]),
  );
const delivery = (step: string, body = '{"status":"ok"}') => ({
  step,
  body,
  headers: { 'content-type': 'application/json' },
});
const typeOf = (box: CallbackInbox, value: unknown) => box.refusal(value)?.type;

test('a delivery before the wait is held, answered with the step status, and taken once', (t) => {
  const box = inbox();
  t.is(box.refusal(delivery('payment')), undefined);
  t.false(box.has('payment'));
  t.deepEqual(box.deliver(delivery('payment'), '2026-01-01T00:00:00.000Z'), { status: 200 });
  t.true(box.has('payment'));
  t.is(typeOf(box, delivery('payment', 'other')), CALLBACK_ALREADY_RECEIVED, 'a held one counts as received');
  t.deepEqual(box.take('payment'), { delivery: delivery('payment'), receivedAt: '2026-01-01T00:00:00.000Z' });
  t.false(box.has('payment'));
  t.is(box.take('payment'), undefined);
  t.is(typeOf(box, delivery('payment')), CALLBACK_ALREADY_RECEIVED, 'a taken one too');
  t.is(box.refusal(delivery('order')), undefined, 'steps are independent');
});

test('a step whose wait timed out refuses later deliveries as expired; one held already stays', (t) => {
  const box = inbox();
  box.expire('payment');
  t.is(typeOf(box, delivery('payment')), CALLBACK_EXPIRED);
  box.deliver(delivery('order'), 'now');
  box.expire('order');
  t.true(box.has('order'), 'expiring does not drop an accepted callback');
});

test('closing (the flow ended) expires every step that did not get its callback', (t) => {
  const box = inbox();
  box.deliver(delivery('order'), 'now');
  box.close();
  t.is(typeOf(box, delivery('payment')), CALLBACK_EXPIRED);
  t.is(typeOf(box, delivery('order')), CALLBACK_ALREADY_RECEIVED);
});

test('unknown steps and malformed deliveries are refused, with messages that name no body', (t) => {
  const box = inbox();
  const unknown = box.refusal(delivery('paymnet', 'secret-body'));
  t.deepEqual(unknown, { type: CALLBACK_UNKNOWN_STEP, message: 'no waitForCallback step is named "paymnet"' });
  for (const value of [
    undefined,
    null,
    'x',
    { step: 'payment', body: 1, headers: {} },
    { step: 'payment', body: '', headers: { a: 1 } },
    { step: 'payment', body: '', headers: [] },
    { body: '', headers: {} },
  ]) {
    t.is(typeOf(box, value), CALLBACK_MALFORMED, JSON.stringify(value));
  }
  t.is(
    typeOf(new CallbackInbox(new Map()), delivery('payment')),
    CALLBACK_UNKNOWN_STEP,
    'a flow without waits refuses every callback',
  );
});
