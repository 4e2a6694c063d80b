// Any other HMAC sender, described field by field (`direct.verify.hmac`): its
// signature covers a timestamp exactly when `signedContent` has `{timestamp}`
// (read from `timestampHeader`), and the secret is whatever sender and flow
// agree on, so it may be generated here. Publish checks its description; the
// engine verifies by it (engine/domain/direct/verification/hmac-scheme.ts,
// whose hmacConfigProblem must refuse no less than this check does).
import type { HmacVerificationJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { hasControlCharacter } from '../../common/control-characters.ts';
import type { SchemeFacts } from './scheme-facts.ts';

export const HMAC_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export const HMAC_ENCODINGS = ['hex', 'base64'] as const;
const PLACEHOLDERS = new Set(['{body}', '{timestamp}', '{id}']);
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export const hmacFacts: SchemeFacts<HmacVerificationJson> = {
  signedTimestamp: 'when configured',
  hasSignedTimestamp: (hmac) => placeholdersOf(hmac).includes('{timestamp}'),
  withoutSignedTimestamp: 'this hmac route signs no timestamp (no timestampHeader with {timestamp} in signedContent)',
  secretIssuedByProvider: false,
  check: checkHmac,
};

/** The braces of signedContent (default `{body}`): its placeholders, and any stray brace or unknown name. */
function placeholdersOf(hmac: HmacVerificationJson): string[] {
  return (hmac.signedContent || '{body}').match(/\{[^{}]*\}|[{}]/g) ?? [];
}

function checkHmac(hmac: HmacVerificationJson, at: string, errors: string[]): void {
  checkHeaderName(hmac.header, `${at}.header`, errors, true);
  const algorithm = hmac.algorithm ?? '';
  if (algorithm !== '' && !(HMAC_ALGORITHMS as readonly string[]).includes(algorithm))
    errors.push(
      `${at}.algorithm: one of ${HMAC_ALGORITHMS.join(', ')} (default sha256), got ${JSON.stringify(algorithm)}`,
    );
  const encoding = hmac.encoding ?? '';
  if (encoding !== '' && !(HMAC_ENCODINGS as readonly string[]).includes(encoding))
    errors.push(`${at}.encoding: one of ${HMAC_ENCODINGS.join(', ')} (default hex), got ${JSON.stringify(encoding)}`);
  if (hasControlCharacter(hmac.prefix ?? '')) errors.push(`${at}.prefix: must not contain control characters`);

  const content = hmac.signedContent || '{body}';
  const tokens = placeholdersOf(hmac);
  const unknown = tokens.filter((token) => !PLACEHOLDERS.has(token));
  if (unknown.length > 0)
    errors.push(
      `${at}.signedContent: only the placeholders {body}, {timestamp} and {id} (braces have no other use), got ${unknown.map((token) => JSON.stringify(token)).join(', ')}`,
    );
  else if (!tokens.includes('{body}'))
    errors.push(
      `${at}.signedContent: must contain {body} (a signature that does not cover the body proves nothing about it)`,
    );
  else {
    const boundary = signedContentBoundaryProblem(content);
    if (boundary) errors.push(`${at}.signedContent: ${boundary}`);
  }

  if (tokens.includes('{timestamp}'))
    checkHeaderName(hmac.timestampHeader, `${at}.timestampHeader`, errors, true, '(signedContent uses {timestamp})');
  else if (hmac.timestampHeader)
    errors.push(
      `${at}.timestampHeader: signedContent has no {timestamp}, and an unsigned timestamp proves nothing; add {timestamp} to signedContent or remove timestampHeader`,
    );
  if (tokens.includes('{id}'))
    checkHeaderName(hmac.eventIdHeader, `${at}.eventIdHeader`, errors, true, '(signedContent uses {id})');
  else checkHeaderName(hmac.eventIdHeader, `${at}.eventIdHeader`, errors, false);

  const headers = [hmac.header, hmac.timestampHeader, hmac.eventIdHeader]
    .filter((name): name is string => Boolean(name))
    .map((name) => name.toLowerCase());
  if (new Set(headers).size !== headers.length)
    errors.push(`${at}: header, timestampHeader and eventIdHeader must be different headers`);
}

/**
 * Why the placeholders of a signedContent template (of known placeholders only) could trade
 * characters with each other, or undefined. A signature covers the parts joined, not where one
 * ends: with nothing between two placeholders (`{id}{body}`) the same signed bytes read as many
 * (id, body) pairs — id `ab` with body `c…`, id `a` with body `bc…` — and one signature would
 * cover every one of them. A literal between two placeholders fixes the boundary as long as the
 * placeholder beside it cannot contain that literal: an `{id}` never contains a character of the
 * template's literal text (verification refuses such an id), the body is one whole, and a
 * `{timestamp}` is digits (leading zeros read the same), so a literal beside it needs a
 * character that is not a digit. Shared by publish validation and verification (hmac-scheme.ts).
 */
export function signedContentBoundaryProblem(template: string): string | undefined {
  // Odd indexes are placeholders, even ones the literal text between them ('' where they touch).
  const parts = template.split(/(\{body\}|\{timestamp\}|\{id\})/);
  for (let at = 1; at + 2 < parts.length; at += 2) {
    const [left, between, right] = [parts[at]!, parts[at + 1]!, parts[at + 2]!];
    if (between === '') {
      const pair = `(${left.slice(1, -1)}, ${right.slice(1, -1)})`;
      return `${left}${right} puts two placeholders side by side: with no text between them the boundary can move, so the same signed bytes read as many ${pair} pairs and one signature covers them all; put a separator between them, e.g. "${left}.${right}"`;
    }
    if ((left === '{timestamp}' || right === '{timestamp}') && /^[0-9]+$/.test(between)) {
      return `the text "${between}" between ${left} and ${right} is only digits, which a timestamp may hold too, so the boundary between them can move; use a separator with a character that is not a digit, e.g. "${left}.${right}"`;
    }
  }
  return undefined;
}

function checkHeaderName(name: string | undefined, field: string, errors: string[], required: boolean, why = ''): void {
  if (name === undefined || name === '') {
    if (required) errors.push(`${field}: required${why ? ` ${why}` : ''}`);
  } else if (!HEADER_NAME.test(name)) {
    errors.push(
      `${field}: an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-, at most 100), got ${JSON.stringify(name)}`,
    );
  }
}
