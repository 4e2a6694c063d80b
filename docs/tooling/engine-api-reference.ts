// The engine API reference (docs/reference/engine-api.md), from the protos of
// proto/flowhook/engine/v1 with their comments: every service with the
// service account scope its RPCs need (engine/edges/rpc/service-account-gate.ts),
// every RPC with its request and response, and every other message and enum
// they use.
import type { DescEnum, DescFile, DescMessage, DescService } from '@bufbuild/protobuf';
import { OPEN_SERVICES, scopeOfService } from '../../engine/edges/rpc/service-account-gate.ts';
import { slug } from './markdown-outline.ts';
import { code, oneLine, table } from './markdown.ts';
import { enumTable, fieldTable, headingLink, type TypeLink } from './proto-fields.ts';
import { commentedProtos, type CommentedProtos } from './proto-registry.ts';

const ENGINE_PACKAGE = 'flowhook.engine.v1';

export async function renderEngineApiReference(): Promise<string> {
  const protos = await commentedProtos();
  const files = [...protos.registry.files]
    .filter((file) => file.proto.package === ENGINE_PACKAGE)
    .sort((a, b) => a.name.localeCompare(b.name));
  const services = files.flatMap((file) => file.services);
  const link: TypeLink = (type) => (type.typeName.startsWith(`${ENGINE_PACKAGE}.`) ? headingLink(type) : undefined);
  return [
    '## Services',
    '',
    table(
      ['service', 'scope', 'what it is for'],
      services.map((service) => [
        `[${service.name}](#${slug(service.name)})`,
        code(scopeOfService(service.typeName)),
        summary(service, protos),
      ]),
    ),
    '',
    `Open to every caller, without a token: ${[...OPEN_SERVICES]
      .sort()
      .map((name) => code(name))
      .join(', ')}.`,
    ...files.flatMap((file) => renderFile(file, protos, link)),
  ].join('\n');
}

function renderFile(file: DescFile, protos: CommentedProtos, link: TypeLink): string[] {
  const documented = new Set<DescMessage>();
  const parts = file.services.flatMap((service) => renderService(service, protos, link, documented));
  const others = [...file.messages.filter((message) => !documented.has(message)), ...file.enums];
  if (others.length > 0)
    parts.push(
      '',
      `### Types of ${file.services.map((service) => service.name).join(', ') || file.name}`,
      ...others.flatMap((type) => renderType(type, protos, link)),
    );
  return parts;
}

function renderService(
  service: DescService,
  protos: CommentedProtos,
  link: TypeLink,
  documented: Set<DescMessage>,
): string[] {
  return [
    '',
    `## ${service.name}`,
    '',
    code(service.typeName),
    '',
    `Service account scope: ${code(scopeOfService(service.typeName))}.`,
    ...paragraphs(protos.fileComment(service.file)),
    ...paragraphs(protos.comment(service)),
    ...service.methods.flatMap((method) => {
      const own = [method.input, method.output].filter(
        (message) => message.file === service.file && !documented.has(message),
      );
      for (const message of own) documented.add(message);
      return [
        '',
        `### ${service.name}.${method.name}`,
        '',
        code(`rpc ${method.name}(${method.input.name}) returns (${method.output.name})`),
        '',
        `Path: ${code(`/${service.typeName}/${method.name}`)}.`,
        ...paragraphs(protos.comment(method)),
        ...own.flatMap((message) => renderType(message, protos, link)),
      ];
    }),
  ];
}

function renderType(type: DescMessage | DescEnum, protos: CommentedProtos, link: TypeLink): string[] {
  const body =
    type.kind === 'message'
      ? type.fields.length > 0
        ? fieldTable(type, protos, link)
        : 'No fields: `{}`.'
      : enumTable(type, protos);
  // A message's own enums (FlowProblem.Severity) follow it: its fields link to them.
  const nested = type.kind === 'message' ? type.nestedEnums.flatMap((inner) => renderType(inner, protos, link)) : [];
  return ['', `#### ${type.name}`, ...paragraphs(protos.comment(type)), '', body, ...nested];
}

function paragraphs(comment: string): string[] {
  return comment === '' ? [] : ['', comment];
}

/** What a service is for: its comment's first paragraph, or its file's when the service's only lists errors. */
function summary(service: DescService, protos: CommentedProtos): string {
  const own = protos.comment(service);
  const text = own === '' || own.startsWith('Errors:') ? protos.fileComment(service.file) : own;
  return oneLine(text.split('\n\n')[0] ?? '');
}
