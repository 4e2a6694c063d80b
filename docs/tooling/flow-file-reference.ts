// The flow file reference (docs/reference/flow-file.md), from flow.proto and
// its comments: every message a flow file is made of, reached from Flow in the
// order a file reads (trigger, then steps), with every field, and for each step
// kind the shortest place an example flow uses it (flow-examples.ts). The
// examples are validated by test/unit/example-flows.test.ts.
import type { DescEnum, DescMessage } from '@bufbuild/protobuf';
import { FlowSchema, StepSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { RECORD_OPERATIONS, recordOperationSnippets, stepSnippets } from './flow-examples.ts';
import { slug } from './markdown-outline.ts';
import { code, fenced } from './markdown.ts';
import { enumTable, fieldTable, type TypeLink } from './proto-fields.ts';
import { commentedProtos, type CommentedProtos } from './proto-registry.ts';

/** Where an example file is, from the reference page. */
const TO_ROOT = '../../';

export async function renderFlowFileReference(): Promise<string> {
  const protos = await commentedProtos();
  const message = (typeName: string) => protos.registry.getMessage(typeName)!;
  const step = message(StepSchema.typeName);
  const kinds = new Map(step.oneofs[0]!.fields.map((field) => [field.message!.typeName, field.jsonName]));
  const snippets = stepSnippets();
  const heading = (type: DescMessage | DescEnum) => kinds.get(type.typeName) ?? type.name;
  const link: TypeLink = (type) =>
    type.typeName.startsWith('flowhook.')
      ? `[${kinds.has(type.typeName) ? code(heading(type)) : type.name}](#${slug(heading(type))})`
      : undefined;

  const documented = new Set<string>();
  const parts: string[] = [];
  const render = (type: DescMessage | DescEnum, level: number) => {
    if (documented.has(type.typeName) || (type.kind === 'message' && type.fields.length === 0)) return;
    documented.add(type.typeName);
    const isKind = kinds.has(type.typeName);
    const title = isKind ? `${code(heading(type))} (${type.name})` : type.name;
    parts.push('', `${'#'.repeat(level)} ${isKind ? heading(type) : title}`);
    if (isKind) parts.push('', `Message ${code(type.typeName)}.`);
    const comment = protos.comment(type);
    if (comment) parts.push('', comment);
    if (type.kind === 'enum') {
      parts.push('', enumTable(type, protos));
      return;
    }
    parts.push('', fieldTable(type, protos, link));
    const snippet = snippets.get(heading(type));
    if (isKind && snippet)
      parts.push('', `From [${snippet.path}](${TO_ROOT}${snippet.path}):`, '', fenced('yaml', snippet.text));
    // A record step does one of five things: each gets its own example.
    if (heading(type) === 'record') {
      const operations = recordOperationSnippets();
      for (const operation of RECORD_OPERATIONS) {
        const example = operations.get(operation);
        if (example && example.text !== snippet?.text)
          parts.push(
            '',
            `\`${operation}\`, from [${example.path}](${TO_ROOT}${example.path}):`,
            '',
            fenced('yaml', example.text),
          );
      }
    }
    if (type === step) {
      parts.push('', '## Step kinds');
      for (const field of step.oneofs[0]!.fields) render(field.message!, 3);
    }
    for (const field of type.fields) {
      const nested = field.message ?? field.enum;
      if (nested && nested.typeName.startsWith('flowhook.') && !kinds.has(nested.typeName))
        render(nested, isKind || level > 2 ? level + 1 : level);
    }
  };
  render(message(FlowSchema.typeName), 2);
  return parts.join('\n').trim();
}

/** The step kinds no example flow uses (the reference would show no example for them). */
export async function stepKindsWithoutExample(): Promise<string[]> {
  const protos: CommentedProtos = await commentedProtos();
  const snippets = stepSnippets();
  return protos.registry
    .getMessage(StepSchema.typeName)!
    .oneofs[0]!.fields.map((field) => field.jsonName)
    .filter((kind) => !snippets.has(kind));
}
