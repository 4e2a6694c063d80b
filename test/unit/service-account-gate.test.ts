// The gate in front of the engine's services, on a real HTTP/2 server with a
// directory the test controls: a directory that cannot be read (PostgreSQL
// down) is UNAVAILABLE, not a refusal; a refusal never reaches the handler.
import test from 'ava';
import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { connectNodeAdapter, createGrpcTransport } from '@connectrpc/connect-node';
import pino from 'pino';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { serviceAccountContext, serviceAccountGate, serviceAccountOf } from '../../engine/rpc/service-account-gate.ts';
import type { ServiceAccountDirectory } from '../../engine/rpc/service-account-directory.ts';

async function serve(directory: ServiceAccountDirectory) {
  let handled = 0;
  const handler = connectNodeAdapter({
    contextValues: serviceAccountContext,
    routes(router) {
      router.service(WebhookService, {
        invoke(_request, context) {
          handled++;
          return { executionId: serviceAccountOf(context).name };
        },
      });
    },
  });
  const server = createServer(serviceAccountGate(handler, directory, pino({ level: 'silent' })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = (token: string) => createClient(WebhookService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, interceptors: [(next) => (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  }] }));
  return { client, handled: () => handled, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const account = { name: 'svc', scope: 'invoke' as const, allCompanies: true, companyIds: [], forwardsCallers: false };

test('an admitted account reaches the service with its identity; a refused one never does', async (t) => {
  const server = await serve({
    lookup: async (token) => (token === 'good' ? { account } : { refused: 'service_token_invalid' }),
    lookupByName: async () => ({ refused: 'service_token_invalid' }),
    lookupByTokenHash: async () => ({ refused: 'service_token_invalid' }),
  });
  try {
    t.is((await server.client('good').invoke({})).executionId, 'svc');
    const refused = await t.throwsAsync(server.client('bad').invoke({}));
    t.is((refused as ConnectError).code, Code.Unauthenticated);
    t.is(server.handled(), 1);
  } finally {
    await server.close();
  }
});

test('a directory that cannot be read answers UNAVAILABLE, not a refusal', async (t) => {
  const server = await serve({
    lookup: async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    },
    lookupByName: async () => ({ refused: 'service_token_invalid' }),
    lookupByTokenHash: async () => ({ refused: 'service_token_invalid' }),
  });
  try {
    const error = await t.throwsAsync(server.client('any').invoke({}));
    t.true(error instanceof ConnectError);
    t.is((error as ConnectError).code, Code.Unavailable);
    t.is(server.handled(), 0);
  } finally {
    await server.close();
  }
});
