// Calls an engine method the way the most common gRPC client for Node does:
// @grpc/grpc-js, which shares no code with the engine's Connect server, with
// the generated schemas doing the (de)serialisation (no proto-loader needed).
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';

/** What the call ended with: grpc-js's status code and details, and the answer when the code is OK. */
export interface GrpcJsOutcome<O> {
  code: status;
  details: string;
  response?: O;
}

export interface GrpcJsUnaryClient {
  call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    input: MessageInitShape<I>,
    token?: string,
  ): Promise<GrpcJsOutcome<MessageShape<O>>>;
  close(): void;
}

/** A grpc-js client for an h2c engine URL (http://host:port); close() ends its connection (no connection shared with other clients). */
export function grpcJsUnaryClient(engineUrl: string): GrpcJsUnaryClient {
  const client = new Client(new URL(engineUrl).host, credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  });
  return {
    call(method, input, token) {
      const metadata = new Metadata();
      if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          `/${method.parent.typeName}/${method.name}`,
          (message: MessageShape<typeof method.input>) => Buffer.from(toBinary(method.input, message)),
          (bytes: Buffer) => fromBinary(method.output, bytes),
          create(method.input, input),
          metadata,
          (error: ServiceError | null, response?: MessageShape<typeof method.output>) =>
            resolve(error ? { code: error.code, details: error.details } : { code: status.OK, details: '', response }),
        );
      });
    },
    close: () => client.close(),
  };
}
