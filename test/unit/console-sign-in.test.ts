// ConsoleService.SignIn under the sign-in limits, in memory (the HTTP side is
// test/e2e/console-sign-in-limits.test.ts): a wrong token is refused and
// counted; past the sender's free failures the attempt is refused before any
// token is looked up, with the wait as Retry-After; the log names the sender
// and the reason, never a token.
import { Writable } from 'node:stream';
import test from 'ava';
import { Code, ConnectError, createClient, createRouterTransport, type Interceptor } from '@connectrpc/connect';
import pino from 'pino';
import { ConsoleService } from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { CONSOLE_CALL } from '../../engine/edges/console/console-gate.ts';
import { createConsoleService } from '../../engine/edges/console/console-service.ts';
import type { ConsoleSessions } from '../../engine/edges/console/console-sessions.ts';
import { browserCookie } from '../../engine/edges/http/browser-sessions.ts';
import { SignInLimiter } from '../../engine/edges/console/sign-in-limiter.ts';
import type { SignInRefusal } from '../../engine/domain/metrics/engine-metrics.ts';
import { errorInterceptor } from '../../engine/edges/rpc/error-interceptor.ts';
import type { ServiceAccountDirectory } from '../../engine/domain/callers/service-account-directory.ts';

const SENDER = '192.0.2.44';

test('wrong tokens are refused and counted; past five, attempts are refused unchecked with Retry-After; no token reaches the log', async (t) => {
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  let lookups = 0;
  const accounts: ServiceAccountDirectory = {
    lookup: async () => {
      lookups++;
      return { refused: 'service_token_invalid' };
    },
    lookupByTokenHash: async () => ({ refused: 'service_token_invalid' }),
    lookupByName: async () => ({ refused: 'service_token_invalid' }),
    currentTokenHashes: async () => [],
  };
  const refused: SignInRefusal[] = [];
  const service = createConsoleService({
    // No sign-in succeeds here: the sessions are never reached.
    sessions: {} as ConsoleSessions,
    accounts,
    csrfKey: Buffer.alloc(32),
    credentialKey: Buffer.alloc(32),
    cookie: browserCookie('flowhook_console_session', false),
    limiter: new SignInLimiter(),
    signInRefused: (reason) => refused.push(reason),
    logger,
  });
  // What the console's gate hands the service: the sender of the connection.
  const fromSender: Interceptor = (next) => (request) => {
    request.contextValues.set(CONSOLE_CALL, { staleCookie: false, sender: SENDER });
    return next(request);
  };
  const client = createClient(
    ConsoleService,
    createRouterTransport(({ service: route }) => route(ConsoleService, service), {
      router: { interceptors: [fromSender, errorInterceptor(logger)] },
    }),
  );

  const tokens = Array.from({ length: 7 }, (_, i) => `guess-${i}-${'x'.repeat(30)}`);
  for (const token of tokens.slice(0, 5)) {
    const error = await t.throwsAsync(client.signIn({ adminToken: token }));
    t.is(ConnectError.from(error).code, Code.Unauthenticated);
  }
  t.is(lookups, 5);
  for (const token of tokens.slice(5)) {
    const error = ConnectError.from(await t.throwsAsync(client.signIn({ adminToken: token })));
    t.is(error.code, Code.ResourceExhausted);
    t.is(error.metadata.get('retry-after'), '1');
  }
  t.is(lookups, 5, 'a held-back attempt looks no token up');
  t.deepEqual(refused, [
    'wrong_token',
    'wrong_token',
    'wrong_token',
    'wrong_token',
    'wrong_token',
    'sender_backoff',
    'sender_backoff',
  ]);

  const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === 40);
  t.is(warnings.length, 7);
  t.like(warnings[0], { sender: SENDER, reason: 'wrong_token', msg: 'console: sign-in refused' });
  t.like(warnings[6], { sender: SENDER, reason: 'sender_backoff', retryAfterSeconds: 1 });
  for (const token of tokens) t.false(lines.join('').includes(token), 'no token in any log line');
});
