// gRPC server reflection, so grpcurl, buf curl and similar tools can list and
// call the engine's services without a copy of its .proto files. Both names of
// the protocol are served: grpc.reflection.v1 (current) and v1alpha (what many
// older clients still ask for); they share one wire format, so one answering
// function serves both. The answers come from the descriptors the generated
// code already embeds: a file is sent with every file it imports, transitively
// (google/protobuf/*.proto included), so a client never has to ask twice.
// A question that cannot be answered gets an error_response on the open
// stream, as the protocol asks, never a failed stream.
import { create, fromBinary, toBinary, type DescExtension, type DescFile, type DescService } from '@bufbuild/protobuf';
import { nestedTypes } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, type ConnectRouter } from '@connectrpc/connect';
import { Health } from '../../../proto/gen/grpc/health/v1/health_pb.js';
import * as v1 from '../../../proto/gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../../proto/gen/grpc/reflection/v1alpha/reflection_pb.js';

export const REFLECTION_V1_SERVICE_NAME = v1.ServerReflection.typeName;
export const REFLECTION_V1ALPHA_SERVICE_NAME = v1alpha.ServerReflection.typeName;

/** What reflection can tell about one set of services, indexed once at registration. */
interface SchemaCatalog {
  serviceNames: string[];
  filesByName: Map<string, DescFile>;
  /** Services, methods, messages, fields, enums, enum values and extensions, by full name. */
  filesBySymbol: Map<string, DescFile>;
  /** Every known message, with the extensions declared for it (often none). */
  extensionsByMessage: Map<string, DescExtension[]>;
}

/** Serves reflection for `services` plus the reflection and health services themselves. */
export function registerReflection(router: ConnectRouter, services: DescService[]): void {
  const catalog = catalogOf([...services, v1.ServerReflection, v1alpha.ServerReflection, Health]);
  router.service(v1.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield answer(request, catalog);
    },
  });
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) {
        const asV1 = fromBinary(
          v1.ServerReflectionRequestSchema,
          toBinary(v1alpha.ServerReflectionRequestSchema, request),
        );
        yield fromBinary(
          v1alpha.ServerReflectionResponseSchema,
          toBinary(v1.ServerReflectionResponseSchema, answer(asV1, catalog)),
        );
      }
    },
  });
}

function catalogOf(services: DescService[]): SchemaCatalog {
  const catalog: SchemaCatalog = {
    serviceNames: [...new Set(services.map((service) => service.typeName))],
    filesByName: new Map(),
    filesBySymbol: new Map(),
    extensionsByMessage: new Map(),
  };
  const extensions: DescExtension[] = [];
  for (const file of withImports(services.map((service) => service.file))) {
    catalog.filesByName.set(file.proto.name, file);
    for (const type of nestedTypes(file)) {
      catalog.filesBySymbol.set(type.typeName, file);
      switch (type.kind) {
        case 'service':
          for (const method of type.methods) catalog.filesBySymbol.set(`${type.typeName}.${method.name}`, file);
          break;
        case 'message':
          if (!catalog.extensionsByMessage.has(type.typeName)) catalog.extensionsByMessage.set(type.typeName, []);
          for (const field of type.fields) catalog.filesBySymbol.set(`${type.typeName}.${field.name}`, file);
          break;
        case 'enum':
          // Enum values live in the scope around the enum, as in C++.
          for (const value of type.values) catalog.filesBySymbol.set(`${scopeOf(type.typeName)}${value.name}`, file);
          break;
        case 'extension':
          extensions.push(type);
          break;
      }
    }
  }
  for (const extension of extensions) catalog.extensionsByMessage.get(extension.extendee.typeName)?.push(extension);
  return catalog;
}

/** The given files and everything they import, each once. */
function withImports(files: DescFile[]): DescFile[] {
  const seen = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (seen.has(file.name)) return;
    seen.set(file.name, file);
    file.dependencies.forEach(visit);
  };
  files.forEach(visit);
  return [...seen.values()];
}

function scopeOf(typeName: string): string {
  const lastDot = typeName.lastIndexOf('.');
  return lastDot < 0 ? '' : typeName.slice(0, lastDot + 1);
}

function answer(request: v1.ServerReflectionRequest, catalog: SchemaCatalog): v1.ServerReflectionResponse {
  const respond = (messageResponse: v1.ServerReflectionResponse['messageResponse']) =>
    create(v1.ServerReflectionResponseSchema, { validHost: request.host, originalRequest: request, messageResponse });
  const files = (file: DescFile | undefined, missing: string) =>
    file === undefined
      ? respond(failure(Code.NotFound, missing))
      : respond({
          case: 'fileDescriptorResponse',
          value: create(v1.FileDescriptorResponseSchema, { fileDescriptorProto: serializedWithImports(file) }),
        });
  const question = request.messageRequest;
  switch (question.case) {
    case 'listServices':
      return respond({
        case: 'listServicesResponse',
        value: create(v1.ListServiceResponseSchema, { service: catalog.serviceNames.map((name) => ({ name })) }),
      });
    case 'fileByFilename':
      return files(catalog.filesByName.get(question.value), `file not found: ${question.value}`);
    case 'fileContainingSymbol': {
      const symbol = withoutLeadingDot(question.value);
      return files(catalog.filesBySymbol.get(symbol), `symbol not found: ${symbol}`);
    }
    case 'fileContainingExtension': {
      const { containingType, extensionNumber } = question.value;
      const extension = catalog.extensionsByMessage
        .get(withoutLeadingDot(containingType))
        ?.find((candidate) => candidate.number === extensionNumber);
      return files(extension?.file, `extension not found: ${extensionNumber} of ${containingType}`);
    }
    case 'allExtensionNumbersOfType': {
      const typeName = withoutLeadingDot(question.value);
      const extensions = catalog.extensionsByMessage.get(typeName);
      if (extensions === undefined) return respond(failure(Code.NotFound, `message type not found: ${typeName}`));
      return respond({
        case: 'allExtensionNumbersResponse',
        value: create(v1.ExtensionNumberResponseSchema, {
          baseTypeName: typeName,
          extensionNumber: extensions.map((extension) => extension.number),
        }),
      });
    }
    case undefined:
      return respond(failure(Code.InvalidArgument, 'the request asks nothing: set one of its message_request fields'));
  }
}

/** The file first (clients take the first entry as the answer), then its imports. */
function serializedWithImports(file: DescFile): Uint8Array[] {
  return withImports([file]).map((each) => toBinary(FileDescriptorProtoSchema, each.proto));
}

function failure(code: Code, message: string): v1.ServerReflectionResponse['messageResponse'] {
  return { case: 'errorResponse', value: create(v1.ErrorResponseSchema, { errorCode: code, errorMessage: message }) };
}

function withoutLeadingDot(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}
