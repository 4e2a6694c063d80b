// Any other HMAC sender, described field by field: the signature header, the
// algorithm (sha1/sha256/sha512), hex or base64, an optional prefix before the
// signature (e.g. `sha256=`), and the signed content as a template of
// `{body}`, `{timestamp}` (the timestamp header's text, checked against the
// replay window) and `{id}` (the event id header's text). The key is the
// secret's UTF-8 bytes. One signature per header. The event id is the
// `eventIdHeader` value: required and signed when the template has `{id}`,
// best effort (like GitHub's delivery id) when it has not — then it is only the
// flow's event id, and the delivery is known by what the signature covers.
import type { HmacVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import {
  HMAC_ALGORITHMS,
  HMAC_ENCODINGS,
  signedContentBoundaryProblem,
} from '../../../../flow/verification-schemes/hmac.ts';
import { HMAC_DIGEST_BYTES, hmacDigest, type HmacAlgorithm } from './hmac-digest.ts';
import { eventIdFromHeaders, headerValue, isEventId } from './request-fields.ts';
import { plainSecretProblem } from './secret-formats.ts';
import { anySecretSigned, decodeDigest, type DigestEncoding } from './signature-compare.ts';
import { timestampRefusal } from './signed-timestamp.ts';
import { accept, bySignedContent, bySignedId, refuse, type VerificationScheme } from './verification-types.ts';

const SIGNED_CONTENT_PLACEHOLDERS = ['body', 'timestamp', 'id'] as const;
type Placeholder = (typeof SIGNED_CONTENT_PLACEHOLDERS)[number];
type ContentPart = { literal: string } | { placeholder: Placeholder };

/** An HmacVerification with its defaults applied and its template parsed. */
interface HmacRules {
  header: string;
  algorithm: HmacAlgorithm;
  encoding: DigestEncoding;
  prefix: string;
  parts: ContentPart[];
  /** Set exactly when the template signs {timestamp}. */
  timestampHeader: string | undefined;
  /** The event id header when the template signs {id}. */
  signedIdHeader: string | undefined;
  /** The event id header when it is configured but not signed. */
  unsignedIdHeader: string | undefined;
  /** Characters of the template's literal text, which a signed id must not contain (so it cannot shift the parts). */
  literalChars: string;
}

export const hmacScheme: VerificationScheme<HmacVerification> = {
  documentation: {
    signatureHeaders: "the route's `header`, optionally after a `prefix`, in `hex` or `base64`",
    signedContent:
      "the route's `signedContent` template of `{body}`, `{timestamp}`, `{id}` and literal text (default `{body}`)",
    secret: 'any text (its UTF-8 bytes are the key)',
    eventId: 'the `eventIdHeader` (signed only when `signedContent` has `{id}`)',
    deliveryKey: '`{id}` when signed; otherwise the signed content',
  },
  // Read from the description as given, valid or not: a header meant to be withheld stays withheld.
  withheldHeaders: (config) =>
    [config.header, config.timestampHeader].map((name) => name.trim().toLowerCase()).filter((name) => name.length > 0),
  secretProblem: plainSecretProblem,
  verify(config, { secrets, request, toleranceSeconds }) {
    const rules = hmacRules(config);
    // Publish validation refuses such a description (hmacConfigProblem); only a hand-built route gets here.
    if (typeof rules === 'string') throw new Error(`invalid hmac verification: ${rules}`);
    const header = headerValue(request.headers, rules.header);
    const timestamp = rules.timestampHeader === undefined ? '' : headerValue(request.headers, rules.timestampHeader);
    const id = rules.signedIdHeader === undefined ? '' : headerValue(request.headers, rules.signedIdHeader);
    if (header === undefined || timestamp === undefined || id === undefined) return refuse('missing_header');
    if (!header.startsWith(rules.prefix)) return refuse('malformed_header');
    const received = decodeDigest(
      header.slice(rules.prefix.length),
      rules.encoding,
      HMAC_DIGEST_BYTES[rules.algorithm],
    );
    if (received === undefined) return refuse('malformed_header');
    if (rules.signedIdHeader !== undefined && (!isEventId(id) || containsAny(id, rules.literalChars)))
      return refuse('malformed_header');
    if (rules.timestampHeader !== undefined) {
      const stale = timestampRefusal(timestamp, request.nowMs, toleranceSeconds);
      if (stale) return refuse(stale);
    }
    const content = rules.parts.map((part) =>
      'literal' in part ? part.literal : { body: request.body, timestamp, id }[part.placeholder],
    );
    const signed = anySecretSigned(secrets, (secret) => hmacDigest(rules.algorithm, secret, content), [received]);
    if (!signed) return refuse('signature_mismatch');
    const timestamped = rules.timestampHeader !== undefined;
    if (rules.signedIdHeader !== undefined) return accept(id, bySignedId(id, timestamped));
    const unsignedId =
      rules.unsignedIdHeader === undefined ? undefined : eventIdFromHeaders(request.headers, [rules.unsignedIdHeader]);
    return accept(unsignedId, bySignedContent(content, timestamped));
  },
};

/**
 * Why this description cannot be verified, or undefined when it can. Publish
 * validation (flow/verification-schemes/hmac.ts, stricter: header name syntax,
 * distinct headers) must refuse at least these; a test holds the two together.
 */
export function hmacConfigProblem(config: HmacVerification): string | undefined {
  const rules = hmacRules(config);
  return typeof rules === 'string' ? rules : undefined;
}

/** The rules, or the problem that makes the description unusable. */
function hmacRules(config: HmacVerification): HmacRules | string {
  const header = config.header.trim().toLowerCase();
  if (!header) return 'header is required';
  const algorithm = (config.algorithm || 'sha256') as HmacAlgorithm;
  if (!(HMAC_ALGORITHMS as readonly string[]).includes(algorithm))
    return `algorithm must be one of ${HMAC_ALGORITHMS.join(', ')}`;
  const encoding = (config.encoding || 'hex') as DigestEncoding;
  if (!(HMAC_ENCODINGS as readonly string[]).includes(encoding))
    return `encoding must be one of ${HMAC_ENCODINGS.join(', ')}`;
  const parts = parseSignedContent(config.signedContent || '{body}');
  if (typeof parts === 'string') return parts;
  const has = (placeholder: Placeholder) =>
    parts.some((part) => 'placeholder' in part && part.placeholder === placeholder);
  if (!has('body')) return 'signedContent must contain {body}';
  const boundary = signedContentBoundaryProblem(config.signedContent || '{body}');
  if (boundary) return `signedContent: ${boundary}`;
  const timestampHeader = config.timestampHeader.trim().toLowerCase() || undefined;
  const eventIdHeader = config.eventIdHeader.trim().toLowerCase() || undefined;
  if (has('timestamp') && !timestampHeader) return 'signedContent uses {timestamp}: timestampHeader is required';
  if (!has('timestamp') && timestampHeader)
    return 'timestampHeader is unsigned unless signedContent contains {timestamp}';
  if (has('id') && !eventIdHeader) return 'signedContent uses {id}: eventIdHeader is required';
  const literalChars = parts.map((part) => ('literal' in part ? part.literal : '')).join('');
  return {
    header,
    algorithm,
    encoding,
    prefix: config.prefix,
    parts,
    timestampHeader,
    signedIdHeader: has('id') ? eventIdHeader : undefined,
    unsignedIdHeader: has('id') ? undefined : eventIdHeader,
    literalChars,
  };
}

/** `{name}` placeholders between literal text; `{` is always a placeholder's start (no escape is needed by any sender we know). */
function parseSignedContent(template: string): ContentPart[] | string {
  const parts: ContentPart[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    if (open === -1) {
      parts.push({ literal: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ literal: template.slice(at, open) });
    const close = template.indexOf('}', open);
    const name = close === -1 ? undefined : template.slice(open + 1, close);
    if (name === undefined || !(SIGNED_CONTENT_PLACEHOLDERS as readonly string[]).includes(name)) {
      return `signedContent may only use the placeholders ${SIGNED_CONTENT_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`;
    }
    parts.push({ placeholder: name as Placeholder });
    at = close + 1;
  }
  return parts;
}

function containsAny(text: string, chars: string): boolean {
  for (let i = 0; i < chars.length; i++) {
    if (text.includes(chars[i]!)) return true;
  }
  return false;
}
