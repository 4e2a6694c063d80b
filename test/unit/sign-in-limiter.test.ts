// The console's sign-in limits (engine/edges/console/sign-in-limiter.ts), on a
// clock the test drives: five failures free per sender, then a wait that
// doubles after every further failure up to fifteen minutes; a deployment's
// budget shared among its live engines; a right token takes its attempt back;
// senders counted by address, IPv6 by /64.
import test from 'ava';
import {
  delayAfter,
  senderOfSocket,
  SIGN_IN_LIMITS,
  SignInLimiter,
} from '../../engine/edges/console/sign-in-limiter.ts';

const T0 = 1_000_000;

/** Fails `count` attempts of `sender` at `at`, each admitted. */
function fail(limiter: SignInLimiter, sender: string, count: number, at: number): void {
  for (let i = 0; i < count; i++) {
    const verdict = limiter.admit(sender, at);
    if (!verdict.allowed) throw new Error(`attempt ${i + 1} of ${sender} was refused`);
  }
}

test('five failures are free; then each attempt waits 1 s, 2 s, 4 s … after the last failure, at most 15 minutes', (t) => {
  const limiter = new SignInLimiter();
  fail(limiter, '192.0.2.7', 5, T0);
  const held = limiter.admit('192.0.2.7', T0);
  t.like(held, { allowed: false, reason: 'sender', retryAfterSeconds: 1 });
  t.true(limiter.admit('192.0.2.7', T0 + 1000).allowed, 'after the wait, one more try');
  t.like(
    limiter.admit('192.0.2.7', T0 + 2500),
    { allowed: false, retryAfterSeconds: 1 },
    'the sixth failure doubles the wait: 2 s after it',
  );
  t.true(limiter.admit('192.0.2.7', T0 + 3000).allowed);
  t.like(limiter.admit('192.0.2.7', T0 + 3000), { allowed: false, retryAfterSeconds: 4 });
  t.deepEqual(
    [5, 6, 7, 8, 14, 15, 40].map((failures) => delayAfter(SIGN_IN_LIMITS, failures) / 1000),
    [1, 2, 4, 8, 512, 900, 900],
  );
  t.true(new SignInLimiter().admit('192.0.2.8', T0).allowed, 'another sender is not held back');
});

test('a burst of parallel attempts cannot slip through before the first one fails', (t) => {
  const limiter = new SignInLimiter();
  const verdicts = Array.from({ length: 20 }, () => limiter.admit('192.0.2.9', T0));
  t.is(verdicts.filter((verdict) => verdict.allowed).length, 5);
});

test('a right token takes its attempt back: signing in does not count as a failure', (t) => {
  const limiter = new SignInLimiter();
  for (let i = 0; i < 10; i++) {
    const verdict = limiter.admit('192.0.2.10', T0 + i);
    if (!verdict.allowed) return t.fail(`sign-in ${i + 1} held back`);
    verdict.attempt.succeeded();
    verdict.attempt.succeeded();
  }
  fail(limiter, '192.0.2.10', 5, T0 + 20);
  t.false(limiter.admit('192.0.2.10', T0 + 20).allowed, 'failures still count');
});

test("a sender's failures are forgotten an hour after its last", (t) => {
  const limiter = new SignInLimiter();
  fail(limiter, '192.0.2.11', 5, T0);
  t.false(limiter.admit('192.0.2.11', T0).allowed);
  fail(limiter, '192.0.2.11', 5, T0 + 3_600_000);
});

test("the deployment's budget holds whoever sends, shared among the live engines, and frees up as the window passes", (t) => {
  let engines = 1;
  const limiter = new SignInLimiter(SIGN_IN_LIMITS, () => engines);
  // Sixty failures from twelve senders, five each: nobody is held back as a sender.
  for (let sender = 0; sender < 12; sender++) fail(limiter, `198.51.100.${sender}`, 5, T0 + sender);
  const refused = limiter.admit('203.0.113.1', T0 + 100);
  t.like(refused, { allowed: false, reason: 'deployment', retryAfterSeconds: 600 });
  t.true(limiter.admit('203.0.113.1', T0 + 600_000).allowed, 'ten minutes after the first failure, one is free again');

  engines = 3;
  const shared = new SignInLimiter(SIGN_IN_LIMITS, () => engines);
  for (let sender = 0; sender < 4; sender++) fail(shared, `198.51.100.${sender}`, 5, T0);
  t.like(
    shared.admit('203.0.113.2', T0),
    { allowed: false, reason: 'deployment' },
    'with three engines, each admits a third: 20',
  );
});

test('senders: the TCP peer, IPv4-mapped addresses as IPv4, IPv6 by its /64', (t) => {
  t.is(senderOfSocket('::ffff:192.0.2.7'), '192.0.2.7');
  t.is(senderOfSocket('192.0.2.7'), '192.0.2.7');
  t.is(senderOfSocket('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  t.is(senderOfSocket('2001:db8:1:2::99'), '2001:db8:1:2::/64');
  t.is(senderOfSocket('2001:0db8::1'), '2001:db8:0:0::/64');
  t.is(senderOfSocket('fe80::1%eth0'), 'fe80:0:0:0::/64');
  t.is(senderOfSocket(undefined), '');
});
