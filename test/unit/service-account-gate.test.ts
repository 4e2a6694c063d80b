// The gate in front of the engine's services, on a real HTTP/2 server with a
// directory the test controls: a directory that cannot be read (PostgreSQL
// down) is UNAVAILABLE, not a refusal; a refusal never reaches the handler,
// and every protocol's client reads it as its own error.
import test from 'ava';
import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import {
  connectNodeAdapter,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from '@connectrpc/connect-node';
import pino from 'pino';
import { status } from '@grpc/grpc-js';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { grpcJsUnaryClient } from '../support/grpc-js-unary.ts';
import { serviceAccountContext, serviceAccountGate } from '../../engine/edges/rpc/service-account-gate.ts';
import { serviceAccountOf } from '../../engine/domain/callers/call-context.ts';
import type { ServiceAccountDirectory } from '../../engine/domain/callers/service-account-directory.ts';

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
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = (token: string) =>
    createClient(
      WebhookService,
      createGrpcTransport({
        baseUrl: url,
        interceptors: [
          (next) => (request) => {
            request.header.set('authorization', `Bearer ${token}`);
            return next(request);
          },
        ],
      }),
    );
  return {
    url,
    client,
    handled: () => handled,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const account = { name: 'svc', scope: 'invoke' as const, allCompanies: true, companyIds: [], forwardsCallers: false };

test('an admitted account reaches the service with its identity; a refused one never does', async (t) => {
  const server = await serve({
    lookup: async (token) => (token === 'good' ? { account } : { refused: 'service_token_invalid' }),
    lookupByName: async () => ({ refused: 'service_token_invalid' }),
    lookupByTokenHash: async () => ({ refused: 'service_token_invalid' }),
    currentTokenHashes: async () => [],
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

test('a refusal reaches Connect, gRPC-Web and gRPC clients as their own error, with its message', async (t) => {
  const server = await serve({
    lookup: async () => ({ refused: 'service_token_invalid' }),
    lookupByName: async () => ({ refused: 'service_token_invalid' }),
    lookupByTokenHash: async () => ({ refused: 'service_token_invalid' }),
    currentTokenHashes: async () => [],
  });
  const grpcJs = grpcJsUnaryClient(server.url);
  try {
    const transports = {
      connect: createConnectTransport({ baseUrl: server.url, httpVersion: '2' }),
      'gRPC-Web': createGrpcWebTransport({ baseUrl: server.url, httpVersion: '2' }),
      gRPC: createGrpcTransport({ baseUrl: server.url }),
    };
    for (const [protocol, transport] of Object.entries(transports)) {
      const error = ConnectError.from(await t.throwsAsync(createClient(WebhookService, transport).invoke({})));
      t.is(error.code, Code.Unauthenticated, protocol);
      t.is(error.rawMessage, 'a service account token is required (authorization: Bearer fhsa_…)', protocol);
    }
    t.deepEqual(await grpcJs.call(WebhookService.method.invoke, {}), {
      code: status.UNAUTHENTICATED,
      details: 'a service account token is required (authorization: Bearer fhsa_…)',
    });
    t.is(server.handled(), 0);
  } finally {
    grpcJs.close();
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
    currentTokenHashes: async () => [],
  });
  try {
    const error = await t.throwsAsync(server.client('any').invoke({}));
    t.true(error instanceof ConnectError);
    t.is((error as ConnectError).code, Code.Unavailable);
    // grpc-js reads the status only from a Trailers-Only answer that really ends the stream.
    const grpcJs = grpcJsUnaryClient(server.url);
    try {
      t.deepEqual(await grpcJs.call(WebhookService.method.invoke, {}, 'any'), {
        code: status.UNAVAILABLE,
        details: 'the engine cannot check its service accounts right now',
      });
    } finally {
      grpcJs.close();
    }
    t.is(server.handled(), 0);
  } finally {
    await server.close();
  }
});
