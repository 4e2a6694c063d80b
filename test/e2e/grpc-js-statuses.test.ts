// gRPC clients get gRPC statuses (issue 25): each refusal of the engine's gate
// — no token, an unknown token, the wrong scope — and the body limit reach a
// @grpc/grpc-js client as their own status and message, for a small request
// and for one of several MiB that the engine refuses without reading it.
// (The gate's answer used to go out as headers without END_STREAM, followed by
// an empty DATA frame: grpc-js took the status for leading metadata, found no
// trailers and failed every refusal with 13 INTERNAL, "Received RST_STREAM with
// code 0 (Call ended without gRPC status)".)
import test from 'ava';
import net from 'node:net';
import { once } from 'node:events';
import { status } from '@grpc/grpc-js';
import { AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { grpcJsUnaryClient } from '../support/grpc-js-unary.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;

test.before(async () => {
  stack = await startStack({ withoutWorker: true });
});
test.after.always(async () => stack?.close());

const MiB = 1024 * 1024;
const UNKNOWN_TOKEN = `fhsa_${'x'.repeat(43)}`;
/** An Invoke whose payload makes the request message about this many bytes. */
const invokeOf = (bytes: number) => ({
  company: 'Northwind',
  activity: 'orders.flow',
  secret: 'unchecked',
  payloadJson: JSON.stringify('a'.repeat(bytes)),
});

interface CountingRelay {
  url: string;
  /** Bytes the client has sent towards the engine so far: HTTP/2 flow control lets no more through than the engine grants. */
  sent(): number;
  /** Resolves once no connection through the relay is open. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** A loopback TCP relay in front of the engine that counts what the client sends through it. */
async function countingRelay(engineUrl: string): Promise<CountingRelay> {
  const engine = new URL(engineUrl);
  const sockets = new Set<net.Socket>();
  const idle = new EventTarget();
  let sent = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(engine.port), engine.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(socket);
        if (sockets.size === 0) idle.dispatchEvent(new Event('idle'));
      });
    }
    client.on('data', (chunk: Buffer) => (sent += chunk.length));
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    sent: () => sent,
    idle: () =>
      sockets.size === 0
        ? Promise.resolve()
        : new Promise((resolve) => idle.addEventListener('idle', () => resolve(), { once: true })),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

for (const [bytes, what] of [
  [16, 'a small request'],
  [8 * MiB, 'an 8 MiB request'],
] as const) {
  test(`${what}: no token and an unknown token are 16 UNAUTHENTICATED, the wrong scope 7 PERMISSION_DENIED, each with its message`, async (t) => {
    const relay = await countingRelay(stack.engineUrl);
    const client = grpcJsUnaryClient(relay.url);
    t.teardown(async () => (client.close(), await relay.close()));
    const invoke = invokeOf(bytes);
    const refusals = [
      [
        'no token',
        undefined,
        { code: status.UNAUTHENTICATED, details: 'a service account token is required (authorization: Bearer fhsa_…)' },
      ],
      [
        'an unknown token',
        UNKNOWN_TOKEN,
        { code: status.UNAUTHENTICATED, details: 'a valid service account token is required' },
      ],
      [
        'an admin token',
        stack.tokens.admin,
        {
          code: status.PERMISSION_DENIED,
          details:
            'flowhook.engine.v1.WebhookService needs a service account of scope "invoke"; "test-admin" has scope "admin"',
        },
      ],
    ] as const;
    for (const [who, token, expected] of refusals) {
      const before = relay.sent();
      t.deepEqual(await client.call(WebhookService.method.invoke, invoke, token), expected, who);
      const reached = relay.sent() - before;
      t.log(`${what}, ${who}: ${(reached / 1024).toFixed(0)} KiB of the request got out before the refusal`);
      // Refused on its headers: the body stops at the stream's flow-control window (64 KiB), never read.
      t.true(reached < 256 * 1024, `${who}: ${reached} bytes of a refused request reached the engine`);
    }
    // The other way round too: the facade's invoke account may not call an admin service.
    t.is((await client.call(AppAdminService.method.listApps, {}, stack.tokens.facade)).code, status.PERMISSION_DENIED);
    // And the gate lets the right account through to the service.
    t.is((await client.call(AppAdminService.method.listApps, {}, stack.tokens.admin)).code, status.OK);
  });
}

test('a request message over the body limit, from an account the gate admits, is 8 RESOURCE_EXHAUSTED, and the engine ends the stream', async (t) => {
  const relay = await countingRelay(stack.engineUrl);
  const client = grpcJsUnaryClient(relay.url);
  t.teardown(() => relay.close());
  const outcome = await client.call(WebhookService.method.invoke, invokeOf(8 * MiB), stack.tokens.internal);
  t.is(outcome.code, status.RESOURCE_EXHAUSTED);
  t.regex(outcome.details, /^message size \d+ is larger than configured readMaxBytes \d+$/);
  // Having read the status, grpc-js only half-closes the stream, with most of the body still unsent: unless the
  // engine resets it, the stream stays open on both ends and the client's connection never closes (nor the engine
  // shut down gracefully, which waits for open streams).
  t.timeout(30_000, 'the over-limit stream stayed open: the engine never reset it');
  client.close();
  await relay.idle();
  t.log(`${(relay.sent() / 1024).toFixed(0)} KiB of the 8 MiB request got out`);
});
