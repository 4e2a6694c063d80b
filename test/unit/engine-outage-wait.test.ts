// A worker's calls to the engine wait out an engine restart (no answer:
// UNAVAILABLE), within their bound; any answer the engine gives travels on at
// once. One test against a real HTTP/2 server that starts listening only after
// the call was made, as an engine does when it comes back; the others with a
// scripted `next` and clock for the bounds.
import test from 'ava';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttp2Server } from 'node:http2';
import { Code, ConnectError, type UnaryRequest, type UnaryResponse } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { OutboundService } from '../../proto/gen/flowhook/engine/v1/outbound_service_pb.js';
import { createWorkerEngineClient } from '../../workflows/activities/engine-client.ts';
import { engineOutageWait, ENGINE_OUTAGE_WAIT_MS } from '../../workflows/activities/engine-outage-wait.ts';

test('a call made while the engine is down is answered once the engine listens again; the readiness probe is not held', async (t) => {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const client = createWorkerEngineClient({ engineUrl: `http://127.0.0.1:${port}`, engineToken: 'w'.repeat(24) });
  t.teardown(() => client.close());

  // Nothing listens: the health check reports it at once.
  const health = await t.throwsAsync(client.health.check({}));
  t.is(ConnectError.from(health).code, Code.Unavailable);

  const answered = client.outbound.resolveOutbound({ company: 'Default', executionId: 'x:1', executionGrant: 'g' });
  await new Promise((resolve) => setTimeout(resolve, 700));
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(OutboundService, {
        resolveOutbound: () => ({ callbackUrls: { step: 'https://example.test/cb' } }),
      }),
  });
  const server = createHttp2Server(handler).listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => void server.close());
  t.deepEqual((await answered).callbackUrls, { step: 'https://example.test/cb' });
});

/** A scripted engine: each call takes the next outcome; the clock moves only by the waits. */
function scripted(outcomes: (ConnectError | 'ok')[], attemptTimeLeftMs?: number) {
  let clock = 0;
  const calls: number[] = [];
  const interceptor = engineOutageWait({
    now: () => clock,
    sleep: async (ms) => void (clock += ms),
    attemptTimeLeftMs: () => attemptTimeLeftMs,
  });
  const next = async (): Promise<UnaryResponse> => {
    calls.push(clock);
    const outcome = outcomes.shift() ?? 'ok';
    if (outcome !== 'ok') throw outcome;
    return { stream: false } as UnaryResponse;
  };
  const call = () => interceptor(next as never)({ signal: new AbortController().signal } as UnaryRequest);
  return { call, calls };
}

const down = () => new ConnectError('connect ECONNREFUSED', Code.Unavailable);

test('UNAVAILABLE is tried again with growing pauses until the engine answers', async (t) => {
  const { call, calls } = scripted([down(), down(), down(), 'ok']);
  await call();
  t.deepEqual(calls, [0, 200, 600, 1400]);
});

test('an answer from the engine, a refusal included, is not tried again', async (t) => {
  const { call, calls } = scripted([new ConnectError('no grant', Code.PermissionDenied)]);
  const error = await t.throwsAsync(call());
  t.is(ConnectError.from(error).code, Code.PermissionDenied);
  t.is(calls.length, 1);
});

test(`the wait ends after ${ENGINE_OUTAGE_WAIT_MS / 1000} s, or inside an activity after half the time its attempt has left`, async (t) => {
  const outside = scripted(Array.from({ length: 100 }, down));
  await t.throwsAsync(outside.call());
  t.true(outside.calls.at(-1)! <= ENGINE_OUTAGE_WAIT_MS);
  t.true(
    outside.calls.at(-1)! > ENGINE_OUTAGE_WAIT_MS - 2_000 - 1,
    'pauses grow to 2 s, so the last try is within 2 s of the bound',
  );

  const inActivity = scripted(Array.from({ length: 100 }, down), 10_000);
  await t.throwsAsync(inActivity.call());
  t.true(inActivity.calls.at(-1)! <= 5_000);
  t.true(inActivity.calls.length > 1);
});
