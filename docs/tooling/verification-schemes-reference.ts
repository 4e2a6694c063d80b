// The verification scheme reference (docs/reference/verification-schemes.md),
// from the scheme registries: what each scheme checks (its verifier's
// `documentation`, engine/domain/direct/verification/scheme-registry.ts), what it
// protects against replays (whether it signs a timestamp, its facts in
// flow/verification-schemes/scheme-registry.ts), its flow.proto comment, and the
// shortest `direct:` an example flow writes for it.
import { DirectVerificationSchema, HmacVerificationSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { DIRECT_SCHEME_NAMES, schemeNamed } from '../../engine/domain/direct/verification/scheme-registry.ts';
import { DIRECT_SCHEMES } from '../../flow/verification-schemes/scheme-registry.ts';
import { directSnippets } from './flow-examples.ts';
import { slug } from './markdown-outline.ts';
import { code, fenced, table } from './markdown.ts';
import { fieldTable, type TypeLink } from './proto-fields.ts';
import { commentedProtos } from './proto-registry.ts';

const TO_ROOT = '../../';
const FLOW_FILE_PAGE = 'flow-file.md';

export async function renderVerificationSchemesReference(): Promise<string> {
  const protos = await commentedProtos();
  const oneof = protos.registry.getMessage(DirectVerificationSchema.typeName)!.fields;
  const snippets = directSnippets();
  const schemes = DIRECT_SCHEME_NAMES.map((name) => ({
    name,
    documentation: schemeNamed(name).documentation,
    signedTimestamp: DIRECT_SCHEMES[name].signedTimestamp,
  }));
  const timestamped = schemes.filter(({ signedTimestamp }) => signedTimestamp !== 'never');
  const untimed = schemes.filter(({ signedTimestamp }) => signedTimestamp !== 'always');
  const configured = ({ name, signedTimestamp }: (typeof schemes)[number], signed: boolean) =>
    signedTimestamp === 'when configured' ? `${code(name)} ${signed ? 'with' : 'without'} \`{timestamp}\`` : code(name);
  const flowLink: TypeLink = (type) => `[${type.name}](${FLOW_FILE_PAGE}#${slug(type.name)})`;
  return [
    '## The schemes',
    '',
    table(
      ['scheme', 'signature header(s)', 'signed content', 'secret', 'event id', 'delivery key'],
      schemes.map(({ name, documentation: doc }) => [
        `[${code(name)}](#${slug(name)})`,
        doc.signatureHeaders,
        doc.signedContent,
        doc.secret,
        doc.eventId,
        doc.deliveryKey,
      ]),
    ),
    '',
    '## Replays, by scheme',
    '',
    table(
      ['scheme', 'a replay within…', '…joins the first execution', 'after that'],
      [
        [
          timestamped.map((scheme) => configured(scheme, true)).join(', '),
          '`toleranceSeconds` (at most 1 h; Temporal keeps executions for at least a day)',
          'yes, whatever its unsigned headers say',
          'refused: `stale_timestamp` (401)',
        ],
        [
          untimed.map((scheme) => configured(scheme, false)).join(', '),
          '`FLOWHOOK_HOOK_REPLAY_WINDOW` (default 30 days, at least 3)',
          'yes while Temporal keeps the execution; once it no longer does, refused with 409',
          'the same signed bytes are a new delivery again (and run): nothing in such a request tells a year-old capture from a new event',
        ],
      ],
    ),
    ...schemes.flatMap(({ name }) => {
      const field = oneof.find((member) => member.jsonName === name)!;
      const snippet = snippets.get(name);
      const parts = ['', `## ${name}`, '', protos.comment(field)];
      if (name === 'hmac')
        parts.push('', fieldTable(protos.registry.getMessage(HmacVerificationSchema.typeName)!, protos, flowLink));
      if (snippet)
        parts.push('', `From [${snippet.path}](${TO_ROOT}${snippet.path}):`, '', fenced('yaml', snippet.text));
      return parts;
    }),
  ].join('\n');
}
