// `flowhook flow schema`: prints the JSON Schema of flow files
// (flow-json-schema.ts), with the comments of flow.proto as descriptions. The
// descriptor protoc-gen-es embeds in proto/gen has no SourceCodeInfo, so the
// comments come from the .proto itself, compiled by the same buf that
// generates proto/gen (devDependency @bufbuild/buf). Needs no engine.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, type DescriptorProto, type EnumDescriptorProto, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import type { Command } from 'commander';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { adminAction, CliError, type AdminRuntime } from './admin-action.ts';
import { flowJsonSchema, type ProtoComments, type ProtoElement } from './flow-json-schema.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** buf.yaml's module directory: proto file names are relative to it. */
const PROTO_ROOT = 'proto';

export function registerFlowSchemaCommand(flow: Command, runtime: AdminRuntime): void {
  flow
    .command('schema')
    .description('print the JSON Schema of flow files, for editors (committed as flow.schema.json)')
    .option('--json', 'the schema is JSON either way; errors are printed as JSON too')
    .action(
      adminAction(runtime, async (context) => {
        context.io.out(await flowSchemaText());
      }),
    );
}

/** Exactly what `flowhook flow schema` prints, and what flow.schema.json must hold. */
export async function flowSchemaText(): Promise<string> {
  const comments = protoComments(await compileWithComments(FlowSchema.file.proto.name));
  return `${JSON.stringify(flowJsonSchema(comments), null, 2)}\n`;
}

/** The proto file as buf compiles it, with its comments (SourceCodeInfo). */
async function compileWithComments(protoFile: string): Promise<FileDescriptorProto[]> {
  const args = ['build', '--path', `${PROTO_ROOT}/${protoFile}`, '--exclude-imports', '--as-file-descriptor-set', '-o', '-#format=binpb'];
  try {
    // buf's npm launcher is a Node script; run it with this Node rather than whatever `node` is on PATH.
    const launcher = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');
    const { stdout } = await promisify(execFile)(process.execPath, [launcher, ...args], { cwd: REPO_ROOT, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
    return fromBinary(FileDescriptorSetSchema, stdout).file;
  } catch (error) {
    const detail = String((error as { stderr?: Buffer }).stderr ?? '').trim() || (error as Error).message;
    throw new CliError(`cannot read the comments of ${PROTO_ROOT}/${protoFile} with buf (the devDependency @bufbuild/buf, installed by npm install): ${detail}`, Code.FailedPrecondition);
  }
}

// Field numbers of descriptor.proto: a SourceCodeInfo location's path is made of them.
const FILE_MESSAGE_TYPE = 4;
const FILE_ENUM_TYPE = 5;
const MESSAGE_FIELD = 2;
const MESSAGE_NESTED_TYPE = 3;
const MESSAGE_ENUM_TYPE = 4;
const ENUM_VALUE = 2;

/** Leading comments of the messages, fields, enums and enum values of the files, found by full name. */
export function protoComments(files: FileDescriptorProto[]): ProtoComments {
  const byName = new Map<string, string>();
  for (const file of files) {
    const byPath = new Map((file.sourceCodeInfo?.location ?? []).map((location) => [location.path.join('.'), location.leadingComments]));
    const note = (path: number[], name: string) => {
      const comment = byPath.get(path.join('.'));
      if (comment?.trim()) byName.set(name, prose(comment));
    };
    const visitEnum = (desc: EnumDescriptorProto, path: number[], scope: string) => {
      const name = qualified(scope, desc.name);
      note(path, name);
      desc.value.forEach((value, i) => note([...path, ENUM_VALUE, i], `${name}.${value.name}`));
    };
    const visitMessage = (desc: DescriptorProto, path: number[], scope: string) => {
      const name = qualified(scope, desc.name);
      note(path, name);
      desc.field.forEach((field, i) => note([...path, MESSAGE_FIELD, i], `${name}.${field.name}`));
      desc.nestedType.forEach((nested, i) => visitMessage(nested, [...path, MESSAGE_NESTED_TYPE, i], name));
      desc.enumType.forEach((nested, i) => visitEnum(nested, [...path, MESSAGE_ENUM_TYPE, i], name));
    };
    file.messageType.forEach((desc, i) => visitMessage(desc, [FILE_MESSAGE_TYPE, i], file.package));
    file.enumType.forEach((desc, i) => visitEnum(desc, [FILE_ENUM_TYPE, i], file.package));
  }
  return (element) => byName.get(fullName(element));
}

/** Enum values are named under their enum here (proto scopes them beside it), so two enums never clash. */
function fullName(element: ProtoElement): string {
  return element.kind === 'message' || element.kind === 'enum' ? element.typeName : `${element.parent.typeName}.${element.name}`;
}

function qualified(scope: string, name: string): string {
  return scope === '' ? name : `${scope}.${name}`;
}

/** Comment lines are hard-wrapped prose: a paragraph becomes one line, so editors wrap it to their width. */
function prose(comment: string): string {
  return comment
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.split('\n').map((line) => line.trim()).filter((line) => line !== '').join(' '))
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}
