// The closed set of refusal reasons and the one `call refused` log line:
// which fields it carries, what it leaves out, and that it shows at `info`.
import { Writable } from 'node:stream';
import test from 'ava';
import pino from 'pino';
import {
  logRefusedCall,
  REFUSAL_REASONS,
  REFUSED_CALL_MESSAGE,
  refusedCallFields,
} from '../../common/refusal-reasons.ts';

// A caller that proved who it is but may not do this gets 403; every other refusal is a 401.
const FORBIDDEN = new Set([
  'missing_permission_set',
  'service_account_scope',
  'service_account_company',
  'caller_forwarding_refused',
]);

test('every reason is a snake_case code answered 401, except the refusals of a known caller (403)', (t) => {
  for (const [reason, status] of Object.entries(REFUSAL_REASONS)) {
    t.regex(reason, /^[a-z]+(?:_[a-z]+)*$/);
    t.is(status, FORBIDDEN.has(reason) ? 403 : 401, reason);
  }
});

test('unset and empty fields are left out; caller-supplied text is bounded', (t) => {
  t.deepEqual(refusedCallFields({ reason: 'unknown_user', company: 'Acme', activity: '', user: undefined }), {
    reason: 'unknown_user',
    company: 'Acme',
  });
  const long = refusedCallFields({ reason: 'unknown_user', user: 'u'.repeat(5000) });
  t.is(long.user, `${'u'.repeat(200)}…`);
});

test('the line is written at warn, so it shows at the default info level', (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  logRefusedCall(logger, {
    reason: 'missing_permission_set',
    requestId: 'req-1',
    company: 'Acme',
    activity: 'orders.in',
    user: 'svc',
    permissionSet: 'FLOW ALL',
  });
  t.is(lines.length, 1);
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  t.like(line, {
    level: 40,
    msg: REFUSED_CALL_MESSAGE,
    reason: 'missing_permission_set',
    requestId: 'req-1',
    company: 'Acme',
    activity: 'orders.in',
    user: 'svc',
    permissionSet: 'FLOW ALL',
  });
});
