// The JSON Schema of a flow file, derived from the Flow message descriptor so
// editors (the VS Code YAML extension, any yaml-language-server client)
// complete and check flow files as they are typed, from the same definition
// the CLI and the engine read them with.
//
// Contract: every document the schema accepts, `fromJson(FlowSchema, …)`
// accepts too. The schema asks for the canonical spelling only, where fromJson
// is more lenient: lowerCamelCase names (not proto names: completions and the
// handbook use one spelling), enum names (not numbers, not *_UNSPECIFIED),
// 32-bit integers as numbers (not numeric strings), and no `null` (the mapping
// reads it as "not set", which a flow file says by leaving the key out; in
// YAML a bare `get:` is null, a mistake the editor should flag). And every
// oneof asks for exactly one member: in flow.proto a oneof is the kind of a
// step, trigger or record operation, which publishing requires.
//
// Draft-07, because yaml-language-server (hence the VS Code YAML extension)
// implements draft-07 and earlier; later drafts get a "not yet fully supported"
// warning there. So shared schemas live in `definitions`, and a field's
// description sits beside an `allOf` of its `$ref`, since draft-07 ignores
// keywords next to `$ref`.
import {
  ScalarType,
  type DescEnum,
  type DescEnumValue,
  type DescField,
  type DescMessage,
  type DescOneof,
} from '@bufbuild/protobuf';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

export interface JsonSchema {
  $schema?: string;
  $comment?: string;
  $ref?: string;
  title?: string;
  description?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  /** VS Code / yaml-language-server extension: shown next to each `enum` value in completions. */
  enumDescriptions?: string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  definitions?: Record<string, JsonSchema>;
}

/** What editors show a description of: a oneof clause has no place to show one. */
export type ProtoElement = DescMessage | DescField | DescEnum | DescEnumValue;

/** The documentation of a proto element (its leading comment), when it has one. */
export type ProtoComments = (element: ProtoElement) => string | undefined;

export const JSON_SCHEMA_DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** The schema `flowhook flow schema` prints and `flow.schema.json` holds. */
export function flowJsonSchema(comments: ProtoComments = () => undefined): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DRAFT_07,
    $comment: `Generated from ${FlowSchema.file.proto.name} (${FlowSchema.typeName}) by \`flowhook flow schema\`; do not edit.`,
    title: 'flowhook flow file',
    ...messageJsonSchema(FlowSchema, comments),
  };
}

/** The root message inline; every other message once in `definitions`, so recursion (`if.then` holds steps) is a `$ref`. */
export function messageJsonSchema(root: DescMessage, comments: ProtoComments = () => undefined): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};

  function objectSchema(message: DescMessage): JsonSchema {
    const schema: JsonSchema = described({ type: 'object' }, comments(message));
    schema.properties = Object.fromEntries(message.fields.map((field) => [field.jsonName, fieldSchema(field)]));
    schema.additionalProperties = false;
    const choices = message.oneofs.map(oneofChoice);
    if (choices.length === 1) Object.assign(schema, choices[0]);
    else if (choices.length > 1) schema.allOf = choices;
    return schema;
  }

  /** Exactly one member; with a single member that is plainly `required`, which editors explain better. */
  function oneofChoice(oneof: DescOneof): JsonSchema {
    const members = oneof.fields.map((field) => field.jsonName);
    return members.length === 1 ? { required: members } : { oneOf: members.map((name) => ({ required: [name] })) };
  }

  function fieldSchema(field: DescField): JsonSchema {
    switch (field.fieldKind) {
      case 'scalar':
        return described(scalarSchema(field.scalar), comments(field));
      case 'enum':
        return described(enumSchema(field.enum), comments(field) ?? comments(field.enum));
      case 'message':
        return described(messageSchema(field.message), comments(field) ?? comments(field.message));
      case 'list': {
        const [items, element]: [JsonSchema, ProtoElement | undefined] =
          field.listKind === 'scalar'
            ? [scalarSchema(field.scalar), undefined]
            : field.listKind === 'enum'
              ? [enumSchema(field.enum), field.enum]
              : [messageSchema(field.message), field.message];
        return described({ type: 'array', items }, comments(field) ?? (element && comments(element)));
      }
      case 'map': {
        const values =
          field.mapKind === 'scalar'
            ? scalarSchema(field.scalar)
            : field.mapKind === 'enum'
              ? enumSchema(field.enum)
              : messageSchema(field.message);
        const keys = mapKeySchema(field.mapKey);
        return described(
          { type: 'object', ...(keys ? { propertyNames: keys } : {}), additionalProperties: values },
          comments(field),
        );
      }
    }
  }

  function enumSchema(desc: DescEnum): JsonSchema {
    if (desc.typeName === 'google.protobuf.NullValue') return { type: 'null' };
    // The *_UNSPECIFIED value is the "not set" default, not something to write.
    const values = desc.values.filter((value) => !(value.number === 0 && value.name.endsWith('_UNSPECIFIED')));
    const schema: JsonSchema = { type: 'string', enum: values.map((value) => value.name) };
    const descriptions = values.map((value) => comments(value) ?? '');
    if (descriptions.some((text) => text !== '')) schema.enumDescriptions = descriptions;
    return schema;
  }

  function messageSchema(message: DescMessage): JsonSchema {
    if (message.typeName.startsWith('google.protobuf.')) return wellKnownSchema(message.typeName);
    if (message.typeName === root.typeName) return { $ref: '#' };
    if (!(message.typeName in definitions)) {
      // Reserved before it is built: a message may contain itself.
      definitions[message.typeName] = {};
      definitions[message.typeName] = objectSchema(message);
    }
    return { $ref: `#/definitions/${message.typeName}` };
  }

  const schema = objectSchema(root);
  return Object.keys(definitions).length > 0 ? { ...schema, definitions } : schema;
}

/** Puts a description first; beside a `$ref` it needs an `allOf` (draft-07 ignores `$ref`'s siblings). */
function described(schema: JsonSchema, description: string | undefined): JsonSchema {
  if (description === undefined) return schema;
  return schema.$ref === undefined ? { description, ...schema } : { description, allOf: [schema] };
}

const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };
const UINT32 = { minimum: 0, maximum: 2 ** 32 - 1 };
const FLOAT32_MAX = 3.4028234663852886e38;
const NON_FINITE = ['NaN', 'Infinity', '-Infinity'];

function scalarSchema(type: ScalarType): JsonSchema {
  switch (type) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.BYTES:
      return { type: 'string', pattern: '^[A-Za-z0-9+/_-]*=*$' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', ...INT32 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', ...UINT32 };
    // 64-bit integers are strings in canonical JSON, but a YAML author writes a number; both decode.
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: ['integer', 'string'], pattern: '^-?[0-9]+$' };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: ['integer', 'string'], minimum: 0, pattern: '^[0-9]+$' };
    case ScalarType.DOUBLE:
      return { anyOf: [{ type: 'number' }, { enum: NON_FINITE }] };
    case ScalarType.FLOAT:
      return { anyOf: [{ type: 'number', minimum: -FLOAT32_MAX, maximum: FLOAT32_MAX }, { enum: NON_FINITE }] };
  }
}

/** JSON object keys are text; a map with other key types spells them as text. */
function mapKeySchema(type: ScalarType): JsonSchema | undefined {
  switch (type) {
    case ScalarType.STRING:
      return undefined;
    case ScalarType.BOOL:
      return { enum: ['true', 'false'] };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { pattern: '^[0-9]+$' };
    default:
      return { pattern: '^-?[0-9]+$' };
  }
}

// The well-known types have JSON forms of their own. Only those with a plain
// equivalent are here; another one is an error rather than a wrong schema.
const WELL_KNOWN: Record<string, JsonSchema> = {
  'google.protobuf.Struct': { type: 'object' },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array' },
  'google.protobuf.Empty': { type: 'object', additionalProperties: false },
  'google.protobuf.Timestamp': {
    type: 'string',
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$',
  },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' },
};

function wellKnownSchema(typeName: string): JsonSchema {
  const schema = WELL_KNOWN[typeName];
  if (!schema)
    throw new Error(`no JSON Schema for ${typeName} yet: add its JSON form to WELL_KNOWN in flow-json-schema.ts`);
  return structuredClone(schema);
}
