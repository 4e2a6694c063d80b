// The headers (and provider query strings) the delivery log shows of a request: every credential redacted, and
// only so many, so short, that a caller cannot make a row large. A name is
// redacted when it is one of the known credential headers (Authorization,
// Cookie, the signature headers of every verification scheme, x-api-key) or
// when it merely looks like one (token, secret, signature, key, auth, password,
// session, hmac, …): a header nobody listed is redacted rather than stored by
// default. A value that carries a scheme's credentials (`Bearer …`, `Basic …`)
// is redacted whatever its header is called. Pure.

/** What a redacted value reads as. */
export const REDACTED = '[redacted]';
/** At most this many headers are kept, in the order received; the rest are counted in one entry. */
export const MAX_HEADERS = 40;
/** Names and values are cut to these lengths (an ellipsis marks a cut). */
export const MAX_NAME_LENGTH = 100;
export const MAX_VALUE_LENGTH = 256;
/** All names and values together stay under this many characters. */
export const MAX_TOTAL_LENGTH = 8 * 1024;
/** The entry that says how many headers were left out. */
export const OMITTED_HEADER = 'x-flowhook-omitted-headers';

/** Known credential headers: the webhook endpoint's, and each verification scheme's signature material. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'stripe-signature',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-slack-signature',
  'x-shopify-hmac-sha256',
  'webhook-signature',
  'svix-signature',
  'x-signature',
]);

/** Anything that looks like a credential by its name. */
const CREDENTIAL_NAME =
  /(auth|token|secret|signature|sig$|-sig-|key|passw|pwd|credential|session|cookie|hmac|bearer|jwt|otp|nonce)/i;
/** A value that carries credentials under a scheme, whatever the header is called. */
const CREDENTIAL_VALUE = /^\s*(bearer|basic|digest|negotiate|hmac|token|apikey|sharedaccesssignature)\b/i;

export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(lower) || CREDENTIAL_NAME.test(lower);
}

/** Whether a header's value must not be kept: by its name, or by a scheme's credentials in the value. */
export function isCredential(name: string, value: string): boolean {
  return isCredentialHeader(name) || CREDENTIAL_VALUE.test(value);
}

/** `rawHeaders` as Node gives them (name, value, name, value, …): the pairs the log may keep. */
export function redactedHeaders(rawHeaders: readonly string[]): [string, string][] {
  const kept: [string, string][] = [];
  let total = 0;
  let omitted = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = cut(rawHeaders[i]!.toLowerCase(), MAX_NAME_LENGTH);
    const raw = rawHeaders[i + 1]!;
    const value = isCredential(name, raw) ? REDACTED : cut(raw, MAX_VALUE_LENGTH);
    if (kept.length >= MAX_HEADERS || total + name.length + value.length > MAX_TOTAL_LENGTH) {
      omitted++;
      continue;
    }
    kept.push([name, value]);
    total += name.length + value.length;
  }
  if (omitted > 0) kept.push([OMITTED_HEADER, String(omitted)]);
  return kept;
}

/** A query string as the log shows it: parameters whose names look like credentials redacted (the exact one stays encrypted for a replay). */
export function redactedQuery(query: string): string {
  if (query === '') return '';
  return query
    .split('&')
    .map((part) => {
      const [name = '', ...rest] = part.split('=');
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // An undecodable name is judged as written.
      }
      return rest.length > 0 && isCredentialHeader(decoded) ? `${name}=${encodeURIComponent(REDACTED)}` : part;
    })
    .join('&');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
