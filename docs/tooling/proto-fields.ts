// A message's fields as a reference table: the JSON name (what flow files,
// Connect JSON and `buf curl` spell), the type in words, and the field's
// comment. Shared by the flow file and engine API references.
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { slug } from './markdown-outline.ts';
import { code, table } from './markdown.ts';
import type { CommentedProtos } from './proto-registry.ts';

/** How a reference names a type it documents: a link to its heading, or plain words for the rest. */
export type TypeLink = (type: DescMessage | DescEnum) => string | undefined;

/** The heading anchor of a type documented under a heading of its own name. */
export const headingLink: TypeLink = (type) => `[${type.name}](#${slug(type.name)})`;

const WELL_KNOWN: Readonly<Record<string, string>> = {
  'google.protobuf.Struct': 'object (any JSON object)',
  'google.protobuf.Value': 'any JSON value',
  'google.protobuf.Timestamp': 'timestamp (RFC 3339 text)',
  'google.protobuf.Duration': 'duration',
};

/** The fields as a table, followed by a line for each choice (oneof) of several fields. */
export function fieldTable(message: DescMessage, protos: CommentedProtos, link: TypeLink): string {
  const rows = message.fields.map((field) => [code(field.jsonName), typeOf(field, link), meaning(field, protos)]);
  const choices = message.oneofs
    .filter((oneof) => oneof.fields.length > 1)
    .map((oneof) => `Exactly one of ${oneof.fields.map((member) => code(member.jsonName)).join(', ')}.`);
  return [table(['field', 'type', 'meaning'], rows), ...choices].join('\n\n');
}

/** The field's comment; without one, what its message's comment says first (a step kind's field says nothing of its own). */
function meaning(field: DescField, protos: CommentedProtos): string {
  const own = protos.comment(field);
  if (own !== '' || field.message === undefined) return own;
  return protos.comment(field.message).split('\n\n')[0] ?? '';
}

export function typeOf(field: DescField, link: TypeLink): string {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarName(field.scalar) + (field.proto.proto3Optional ? ' (optional)' : '');
    case 'enum':
      return enumName(field.enum, link);
    case 'message':
      return messageName(field.message, link);
    case 'list':
      return `list of ${field.listKind === 'scalar' ? scalarName(field.scalar) : field.listKind === 'enum' ? enumName(field.enum, link) : messageName(field.message, link)}`;
    case 'map':
      return `map of ${scalarName(field.mapKey)} to ${field.mapKind === 'scalar' ? scalarName(field.scalar) : field.mapKind === 'enum' ? enumName(field.enum, link) : messageName(field.message, link)}`;
  }
}

/** A message without fields is written `{}`: it needs no section of its own. */
function messageName(message: DescMessage, link: TypeLink): string {
  if (message.fields.length === 0) return '`{}`';
  return WELL_KNOWN[message.typeName] ?? link(message) ?? message.name;
}

function enumName(desc: DescEnum, link: TypeLink): string {
  return link(desc) ?? desc.name;
}

function scalarName(scalar: ScalarType): string {
  switch (scalar) {
    case ScalarType.STRING:
      return 'string';
    case ScalarType.BOOL:
      return 'bool';
    case ScalarType.BYTES:
      return 'bytes (base64 in JSON)';
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return `${ScalarType[scalar].toLowerCase()} (a string in JSON)`;
    default:
      return ScalarType[scalar].toLowerCase();
  }
}

/** An enum's values with their comments; `*_UNSPECIFIED` is listed as what it means. */
export function enumTable(desc: DescEnum, protos: CommentedProtos): string {
  return table(
    ['value', 'meaning'],
    desc.values.map((value) => [code(value.name), protos.comment(value)]),
  );
}
