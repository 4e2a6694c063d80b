// Reflection and health are only worth having if the tools people actually
// use understand them, so they are checked with clients that share no code
// with the server: the buf CLI (both reflection protocols, Connect and gRPC)
// and @grpc/grpc-js as a raw gRPC transport. A bare HTTP/2 server registers
// the engine's services the way engine/server.ts does, without the engine.
import test from 'ava';
import { execFile } from 'node:child_process';
import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  create,
  createFileRegistry,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescService,
  type MessageInitShape,
} from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Client, credentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { RecordService } from '../../proto/gen/flowhook/engine/v1/record_service_pb.js';
import { InvokeResponseSchema, WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import {
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
  type HealthCheckResponse,
} from '../../proto/gen/grpc/health/v1/health_pb.js';
import * as v1 from '../../proto/gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../proto/gen/grpc/reflection/v1alpha/reflection_pb.js';
import { registerHealth } from '../../engine/edges/rpc/grpc-health.ts';
import { registerReflection } from '../../engine/edges/rpc/grpc-reflection.ts';
import { eventually } from '../support/eventually.ts';

const BUF = fileURLToPath(new URL('../../node_modules/.bin/buf', import.meta.url));
const SERVICES = [WebhookService, RecordService, FlowAdminService];

interface TestServer {
  url: string;
  address: string;
  setServing(serving: boolean): void;
  /** How often health asked isServing(): stops growing once every Watch has ended. */
  servingChecks(): number;
  /** HTTP/2 streams (calls) the server has open. */
  openStreams(): number;
  close(): Promise<void>;
}

async function startServer(): Promise<TestServer> {
  let serving = true;
  let checks = 0;
  const handler = connectNodeAdapter({
    routes(router) {
      router.service(WebhookService, {
        invoke: (request) => create(InvokeResponseSchema, { statusCode: 202, body: `hello ${request.company}` }),
      });
      registerReflection(router, SERVICES);
      registerHealth(router, SERVICES, () => (checks++, serving), 20);
    },
  });
  const server: Http2Server = createServer(handler);
  const sessions = new Set<{ destroy(): void }>();
  server.on('session', (session) => sessions.add(session));
  let streams = 0;
  server.on('stream', (stream) => {
    streams++;
    stream.once('close', () => streams--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    setServing: (value) => void (serving = value),
    servingChecks: () => checks,
    openStreams: () => streams,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      }),
  };
}

const bufCurl = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)(BUF, ['curl', '--http2-prior-knowledge', ...args], { timeout: 30_000 })).stdout;

// ---- buf curl ------------------------------------------------------------

for (const protocol of ['connect', 'grpc']) {
  for (const reflectProtocol of ['grpc-v1', 'grpc-v1alpha']) {
    test(`buf curl --protocol ${protocol} --reflect-protocol ${reflectProtocol} lists every method, and calls through the reflected schema`, async (t) => {
      const server = await startServer();
      t.teardown(() => server.close());
      const reflect = ['--protocol', protocol, '--reflect', '--reflect-protocol', reflectProtocol];
      const methods = (await bufCurl(...reflect, '--list-methods', server.url)).trim().split('\n');
      for (const method of [
        'flowhook.engine.v1.WebhookService/Invoke',
        'flowhook.engine.v1.RecordService/GetRecord',
        'flowhook.engine.v1.FlowAdminService/PublishFlow',
        'grpc.health.v1.Health/Check',
        'grpc.health.v1.Health/Watch',
        'grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
        'grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
      ]) {
        t.true(methods.includes(method), `${method} missing from ${methods.join(', ')}`);
      }
      // The request is encoded from the reflected descriptors only: buf has no .proto file.
      const invoked = JSON.parse(
        await bufCurl(...reflect, '-d', '{"company":"Acme"}', `${server.url}/flowhook.engine.v1.WebhookService/Invoke`),
      );
      t.deepEqual(invoked, { statusCode: 202, body: 'hello Acme' });
      t.deepEqual(JSON.parse(await bufCurl(...reflect, '-d', '{}', `${server.url}/grpc.health.v1.Health/Check`)), {
        status: 'SERVING',
      });
    });
  }
}

test('buf curl sees health follow isServing(), for the server and for a named service', async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const check = async (body: string) =>
    JSON.parse(
      await bufCurl('--protocol', 'grpc', '--reflect', '-d', body, `${server.url}/grpc.health.v1.Health/Check`),
    );
  t.deepEqual(await check('{"service":"flowhook.engine.v1.RecordService"}'), { status: 'SERVING' });
  server.setServing(false);
  t.deepEqual(await check('{}'), { status: 'NOT_SERVING' });
  t.deepEqual(await check('{"service":"flowhook.engine.v1.WebhookService"}'), { status: 'NOT_SERVING' });
  const unknown = await t.throwsAsync(check('{"service":"no.such.Service"}'));
  t.regex(String((unknown as Error & { stderr?: string }).stderr), /not[_ ]found/i);
});

// ---- grpc-js: health ------------------------------------------------------

function healthCheck(client: Client, service: string): Promise<HealthCheckResponse> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (request: string) =>
        Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service: request }))),
      (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
      service,
      (error, response) => (error ? reject(error) : resolve(response!)),
    ),
  );
}

test('grpc-js Health/Check: overall and known services follow isServing(), an unknown service is NOT_FOUND', async (t) => {
  const server = await startServer();
  const client = new Client(server.address, credentials.createInsecure());
  t.teardown(async () => {
    client.close();
    await server.close();
  });
  t.is((await healthCheck(client, '')).status, ServingStatus.SERVING);
  t.is((await healthCheck(client, 'flowhook.engine.v1.WebhookService')).status, ServingStatus.SERVING);
  t.is((await healthCheck(client, 'grpc.health.v1.Health')).status, ServingStatus.SERVING);
  server.setServing(false);
  t.is((await healthCheck(client, '')).status, ServingStatus.NOT_SERVING);
  t.is((await healthCheck(client, 'flowhook.engine.v1.FlowAdminService')).status, ServingStatus.NOT_SERVING);
  const unknown = await t.throwsAsync<ServiceError>(healthCheck(client, 'flowhook.engine.v1.NoSuchService'));
  t.is(unknown?.code, GrpcStatus.NOT_FOUND);
});

test('grpc-js Health/Watch: the current status, then each change, and polling stops when the client cancels', async (t) => {
  const server = await startServer();
  const client = new Client(server.address, credentials.createInsecure());
  t.teardown(async () => {
    client.close();
    await server.close();
  });
  const watch = client.makeServerStreamRequest(
    '/grpc.health.v1.Health/Watch',
    (service: string) => Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service }))),
    (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
    '',
  );
  watch.on('error', () => {}); // cancelling ends the call with CANCELLED
  const updates = watch[Symbol.asyncIterator]();
  t.is(((await updates.next()).value as HealthCheckResponse).status, ServingStatus.SERVING);
  server.setServing(false);
  t.is(((await updates.next()).value as HealthCheckResponse).status, ServingStatus.NOT_SERVING);
  server.setServing(true);
  t.is(((await updates.next()).value as HealthCheckResponse).status, ServingStatus.SERVING);
  watch.cancel();
  await eventually(() => server.openStreams(), {
    until: (open) => open === 0,
    what: 'the cancelled Watch closed on the server',
  });
  const afterCancel = server.servingChecks();
  // Nothing to wait for here: the point is that no check happens in a while (ten poll intervals).
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.is(server.servingChecks(), afterCancel, 'the server still polls for a cancelled Watch');
});

test('grpc-js Health/Watch on an unknown service answers SERVICE_UNKNOWN instead of failing', async (t) => {
  const server = await startServer();
  const client = new Client(server.address, credentials.createInsecure());
  t.teardown(async () => {
    client.close();
    await server.close();
  });
  const watch = client.makeServerStreamRequest(
    '/grpc.health.v1.Health/Watch',
    (service: string) => Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service }))),
    (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
    'no.such.Service',
  );
  watch.on('error', () => {});
  t.is(
    ((await watch[Symbol.asyncIterator]().next()).value as HealthCheckResponse).status,
    ServingStatus.SERVICE_UNKNOWN,
  );
  watch.cancel();
});

// ---- grpc-js: reflection, question by question ------------------------------

type ReflectionRequestInit = MessageInitShape<typeof v1.ServerReflectionRequestSchema>;

/** Asks all questions on one stream, for both protocol versions, and returns the v1-shaped answers. */
async function ask(
  address: string,
  version: 'v1' | 'v1alpha',
  questions: ReflectionRequestInit[],
): Promise<v1.ServerReflectionResponse[]> {
  const [requestSchema, responseSchema]: [DescMessage, DescMessage] =
    version === 'v1'
      ? [v1.ServerReflectionRequestSchema, v1.ServerReflectionResponseSchema]
      : [v1alpha.ServerReflectionRequestSchema, v1alpha.ServerReflectionResponseSchema];
  const client = new Client(address, credentials.createInsecure());
  try {
    const stream = client.makeBidiStreamRequest(
      `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
      (question: ReflectionRequestInit) =>
        Buffer.from(toBinary(requestSchema, create(requestSchema, question as never))),
      // Re-read as v1 bytes: both versions must say exactly the same thing.
      (bytes: Buffer) =>
        fromBinary(v1.ServerReflectionResponseSchema, toBinary(responseSchema, fromBinary(responseSchema, bytes))),
    );
    for (const question of questions) stream.write(question);
    stream.end();
    const answers: v1.ServerReflectionResponse[] = [];
    for await (const answer of stream) answers.push(answer as v1.ServerReflectionResponse);
    return answers;
  } finally {
    client.close();
  }
}

const fileNames = (answer: v1.ServerReflectionResponse): string[] =>
  answer.messageResponse.case === 'fileDescriptorResponse'
    ? answer.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name)
    : [];
const errorCode = (answer: v1.ServerReflectionResponse): number | undefined =>
  answer.messageResponse.case === 'errorResponse' ? answer.messageResponse.value.errorCode : undefined;

for (const version of ['v1', 'v1alpha'] as const) {
  test(`grpc-js reflection ${version}: files by symbol and name come with their imports; unknown things are NOT_FOUND on a stream that stays open`, async (t) => {
    const server = await startServer();
    t.teardown(() => server.close());
    const answers = await ask(server.address, version, [
      { host: 'engine', messageRequest: { case: 'listServices', value: '*' } },
      { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'flowhook.engine.v1.RecordService' } },
      { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'no.such.Symbol' } },
      { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'flowhook.engine.v1.WebhookService.Invoke' } },
      {
        host: '',
        messageRequest: { case: 'fileContainingSymbol', value: 'grpc.health.v1.HealthCheckResponse.ServingStatus' },
      },
      { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'flowhook.engine.v1.InvokeOutcome' } },
      { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'flowhook.engine.v1.InvokeRequest.company' } },
      { host: '', messageRequest: { case: 'fileByFilename', value: 'flowhook/engine/v1/flow_admin_service.proto' } },
      { host: '', messageRequest: { case: 'fileByFilename', value: 'no/such/file.proto' } },
      { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'google.protobuf.Timestamp' } },
      {
        host: '',
        messageRequest: {
          case: 'fileContainingExtension',
          value: { containingType: 'flowhook.engine.v1.InvokeRequest', extensionNumber: 100 },
        },
      },
      { host: '', messageRequest: { case: 'allExtensionNumbersOfType', value: 'flowhook.engine.v1.InvokeRequest' } },
      { host: '', messageRequest: { case: 'allExtensionNumbersOfType', value: 'no.such.Message' } },
      { host: '', messageRequest: { case: undefined } },
    ]);
    t.is(answers.length, 14);
    const [
      services,
      recordService,
      unknownSymbol,
      method,
      nestedEnum,
      topEnum,
      field,
      byName,
      unknownFile,
      timestamp,
      extension,
      extensionNumbers,
      unknownType,
      empty,
    ] = answers as [v1.ServerReflectionResponse, ...v1.ServerReflectionResponse[]];

    t.is(services.validHost, 'engine');
    t.is(services.originalRequest?.messageRequest.case, 'listServices');
    t.deepEqual(
      services.messageResponse.case === 'listServicesResponse'
        ? services.messageResponse.value.service.map((service) => service.name).sort()
        : [],
      [
        'flowhook.engine.v1.FlowAdminService',
        'flowhook.engine.v1.RecordService',
        'flowhook.engine.v1.WebhookService',
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
      ],
    );
    // The asked-for file first, then its imports.
    t.deepEqual(fileNames(recordService!).sort(), [
      'flowhook/engine/v1/record_service.proto',
      'google/protobuf/struct.proto',
      'google/protobuf/timestamp.proto',
    ]);
    t.is(fileNames(recordService!)[0], 'flowhook/engine/v1/record_service.proto');
    t.is(errorCode(unknownSymbol!), 5);
    t.is(fileNames(method!)[0], 'flowhook/engine/v1/webhook_service.proto');
    t.deepEqual(fileNames(nestedEnum!), ['grpc/health/v1/health.proto']);
    t.deepEqual(fileNames(topEnum!), ['flowhook/engine/v1/webhook_service.proto']);
    t.deepEqual(fileNames(field!), ['flowhook/engine/v1/webhook_service.proto']);
    // Transitive: flow_admin_service.proto imports flow.proto, which imports struct.proto.
    t.deepEqual(fileNames(byName!).sort(), [
      'flowhook/engine/v1/flow_admin_service.proto',
      'flowhook/flow/v1/flow.proto',
      'google/protobuf/struct.proto',
      'google/protobuf/timestamp.proto',
    ]);
    t.is(errorCode(unknownFile!), 5);
    t.deepEqual(fileNames(timestamp!), ['google/protobuf/timestamp.proto']);
    t.is(errorCode(extension!), 5);
    t.is(extensionNumbers!.messageResponse.case, 'allExtensionNumbersResponse');
    t.deepEqual(
      extensionNumbers!.messageResponse.value,
      create(v1.ExtensionNumberResponseSchema, {
        baseTypeName: 'flowhook.engine.v1.InvokeRequest',
        extensionNumber: [],
      }),
    );
    t.is(errorCode(unknownType!), 5);
    t.is(errorCode(empty!), 3);
  });
}

test('the served descriptors are complete: a registry built from them alone resolves every method and its types', async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const answers = await ask(server.address, 'v1', [
    { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'flowhook.engine.v1.FlowAdminService' } },
    { host: '', messageRequest: { case: 'fileContainingSymbol', value: 'flowhook.engine.v1.RecordService' } },
  ]);
  const files = new Map(
    answers
      .flatMap((answer) =>
        answer.messageResponse.case === 'fileDescriptorResponse'
          ? answer.messageResponse.value.fileDescriptorProto
          : [],
      )
      .map((bytes) => {
        const file = fromBinary(FileDescriptorProtoSchema, bytes);
        return [file.name, file] as const;
      }),
  );
  const signatures = (service: DescService | undefined) =>
    service?.methods.map((method) => `${method.name}(${method.input.typeName}) → ${method.output.typeName}`);
  for (const original of [FlowAdminService, RecordService]) {
    // Imports are resolved from the served files only; a missing one throws.
    const registry = createFileRegistry(files.get(original.file.proto.name)!, (name) => files.get(name));
    t.deepEqual(signatures(registry.getService(original.typeName)), signatures(original));
    t.truthy(registry.getMessage('google.protobuf.Struct'));
  }
});
