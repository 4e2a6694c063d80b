// The comments of the .proto files, which document every field of a flow file
// and every RPC of the engine. The descriptors protoc-gen-es embeds in
// proto/gen carry no SourceCodeInfo, so the comments come from the .proto
// files themselves, compiled by the same buf that generates proto/gen
// (devDependency @bufbuild/buf). `flowhook flow schema` and the handbook's
// references read them here.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  fromBinary,
  type DescEnum,
  type DescEnumValue,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
} from '@bufbuild/protobuf';
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  ServiceDescriptorProtoSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FileDescriptorProto,
  type FileDescriptorSet,
} from '@bufbuild/protobuf/wkt';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** buf.yaml's module directory: proto file names are relative to it. */
export const PROTO_ROOT = 'proto';

/** What a comment can be looked up for. */
export type CommentedElement = DescMessage | DescField | DescEnum | DescEnumValue | DescService | DescMethod;

/**
 * The proto files under `paths` (relative to the repository) as buf compiles them, with their
 * comments (SourceCodeInfo); `withImports` adds the files they import (google/protobuf/…), which
 * a registry of them needs. Throws with buf's own message when it cannot.
 */
export async function compileWithComments(
  paths: readonly string[],
  { withImports = false } = {},
): Promise<FileDescriptorSet> {
  const args = [
    'build',
    ...paths.flatMap((path) => ['--path', path]),
    ...(withImports ? [] : ['--exclude-imports']),
    '--as-file-descriptor-set',
    '-o',
    '-#format=binpb',
  ];
  try {
    // buf's npm launcher is a Node script; run it with this Node rather than whatever `node` is on PATH.
    const launcher = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');
    const { stdout } = await promisify(execFile)(process.execPath, [launcher, ...args], {
      cwd: REPO_ROOT,
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return fromBinary(FileDescriptorSetSchema, stdout);
  } catch (error) {
    const detail = String((error as { stderr?: Buffer }).stderr ?? '').trim() || (error as Error).message;
    throw new Error(
      `cannot read the comments of ${paths.join(', ')} with buf (the devDependency @bufbuild/buf, installed by npm install): ${detail}`,
    );
  }
}

// The fields of descriptor.proto's messages: a SourceCodeInfo location's path is made of their numbers.
const FILE = FileDescriptorProtoSchema.field;
const MESSAGE = DescriptorProtoSchema.field;
const ENUM = EnumDescriptorProtoSchema.field;
const SERVICE = ServiceDescriptorProtoSchema.field;

/**
 * Leading comments of every message, field, enum, enum value, service and method of the files, by
 * `commentKey`; and the comment before each file's `package` line, by `fileCommentKey`.
 */
export function commentsByName(files: readonly FileDescriptorProto[]): ReadonlyMap<string, string> {
  const byName = new Map<string, string>();
  for (const file of files) {
    const byPath = new Map(
      (file.sourceCodeInfo?.location ?? []).map((location) => [location.path.join('.'), location.leadingComments]),
    );
    const note = (path: number[], name: string) => {
      const comment = byPath.get(path.join('.'));
      if (comment?.trim()) byName.set(name, prose(comment));
    };
    note([FILE.package.number], fileCommentKey(file.name));
    const visitEnum = (desc: EnumDescriptorProto, path: number[], scope: string) => {
      const name = qualified(scope, desc.name);
      note(path, name);
      desc.value.forEach((value, i) => note([...path, ENUM.value.number, i], `${name}.${value.name}`));
    };
    const visitMessage = (desc: DescriptorProto, path: number[], scope: string) => {
      const name = qualified(scope, desc.name);
      note(path, name);
      desc.field.forEach((field, i) => note([...path, MESSAGE.field.number, i], `${name}.${field.name}`));
      desc.nestedType.forEach((nested, i) => visitMessage(nested, [...path, MESSAGE.nestedType.number, i], name));
      desc.enumType.forEach((nested, i) => visitEnum(nested, [...path, MESSAGE.enumType.number, i], name));
    };
    file.messageType.forEach((desc, i) => visitMessage(desc, [FILE.messageType.number, i], file.package));
    file.enumType.forEach((desc, i) => visitEnum(desc, [FILE.enumType.number, i], file.package));
    file.service.forEach((desc, i) => {
      const name = qualified(file.package, desc.name);
      note([FILE.service.number, i], name);
      desc.method.forEach((method, j) =>
        note([FILE.service.number, i, SERVICE.method.number, j], `${name}.${method.name}`),
      );
    });
  }
  return byName;
}

/**
 * The name a comment is kept under: a message's, enum's or service's full name; a field, enum
 * value or method under its parent's (enum values too, though proto scopes them beside their
 * enum, so two enums never clash).
 */
export function commentKey(element: CommentedElement): string {
  switch (element.kind) {
    case 'message':
    case 'enum':
    case 'service':
      return element.typeName;
    case 'field':
    case 'enum_value':
    case 'rpc':
      return `${element.parent.typeName}.${element.name}`;
  }
}

/** Where the comment of a file (its name as compiled, e.g. `flowhook/engine/v1/webhook_service.proto`) is kept. */
export function fileCommentKey(fileName: string): string {
  return `file:${fileName}`;
}

function qualified(scope: string, name: string): string {
  return scope === '' ? name : `${scope}.${name}`;
}

/** Comment lines are hard-wrapped prose: a paragraph becomes one line, so editors wrap it to their width. */
function prose(comment: string): string {
  return comment
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join(' '),
    )
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}
