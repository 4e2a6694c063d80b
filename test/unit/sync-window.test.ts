// The sync window keeps a respond step's answer that comes after the window
// timed out (the late answer a caller may fetch), and only then.
import test from 'ava';
import { SyncWindow } from '../../workflows/interpreter/sync-window.ts';

const DEFAULTS = { statusCode: 202, contentType: 'text/plain' };

test('a respond after the timeout is kept as the late answer; the caller still got the default response', (t) => {
  const window = new SyncWindow('WAIT_FOR_RESPONSE_STEP', DEFAULTS, Date.now() - 1);
  window.timeOut();
  t.like(window.answer(), { statusCode: 202, body: '', defaultResponse: true, outcome: 'SYNC_TIMEOUT' });
  t.true(window.respondAfterTimeout(201, 'application/json', '{"late":true}'));
  t.false(window.respondAfterTimeout(200, 'text/plain', 'second'), 'only the first late respond counts');
  t.deepEqual(window.flowAnswer(), {
    response: { statusCode: 201, contentType: 'application/json', body: '{"late":true}' },
    answeredAfterTimeout: true,
    outcome: 'SYNC_TIMEOUT',
    defaultResponse: DEFAULTS,
  });
  // The caller's answer (the update, idempotent retries) does not change.
  t.like(window.answer(), { defaultResponse: true, outcome: 'SYNC_TIMEOUT' });
});

test('past the deadline the window has timed out even before the timer fired', (t) => {
  const window = new SyncWindow('WAIT_FOR_RESPONSE_STEP', DEFAULTS, Date.now() - 1);
  t.true(window.respondAfterTimeout(200, 'text/plain', 'late'));
  window.end();
  t.is(window.outcome, 'SYNC_TIMEOUT');
  t.true(window.flowAnswer().answeredAfterTimeout);
});

test('nothing is kept as late when the window was answered, ended or never open', (t) => {
  const responded = new SyncWindow('WAIT_FOR_RESPONSE_STEP', DEFAULTS, Date.now() + 60_000);
  t.is(responded.flowAnswer().outcome, undefined, 'open window: no outcome yet');
  responded.respond(200, 'text/plain', 'in time');
  t.false(responded.respondAfterTimeout(201, 'text/plain', 'again'));
  t.deepEqual(responded.flowAnswer(), {
    response: { statusCode: 200, contentType: 'text/plain', body: 'in time' },
    answeredAfterTimeout: false,
    outcome: 'RESPONDED',
    defaultResponse: DEFAULTS,
  });

  const open = new SyncWindow('WAIT_FOR_RESPONSE_STEP', DEFAULTS, Date.now() + 60_000);
  t.false(
    open.respondAfterTimeout(200, 'text/plain', 'early'),
    'a window still open is answered with respond(), not kept as late',
  );

  const ended = new SyncWindow('WAIT_FOR_RESPONSE_STEP', DEFAULTS, Date.now() + 60_000);
  ended.end();
  t.false(ended.respondAfterTimeout(200, 'text/plain', 'after end'));
  t.deepEqual(ended.flowAnswer(), {
    response: undefined,
    answeredAfterTimeout: false,
    outcome: 'FLOW_ENDED',
    defaultResponse: DEFAULTS,
  });

  const instant = new SyncWindow('INSTANT_RETURN', DEFAULTS, Date.now() + 60_000);
  t.false(instant.respondAfterTimeout(200, 'text/plain', 'instant'));
  t.is(instant.flowAnswer().outcome, 'INSTANT_RETURN');
});
