// GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`,
// keyed by the webhook secret's UTF-8 bytes. No signed timestamp and no
// signed id: `X-GitHub-Delivery` is an unsigned header anyone replaying a
// captured delivery can change or drop, so it is only the flow's event id; the
// delivery is known by its body, the one thing the signature covers.
// The legacy SHA-1 `X-Hub-Signature` is not accepted, only withheld.
import type { GithubVerification } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { hmacDigest } from './hmac-digest.ts';
import { eventIdFromHeaders, headerValue } from './request-fields.ts';
import { plainSecretProblem } from './secret-formats.ts';
import { anySecretSigned, decodeDigest } from './signature-compare.ts';
import { accept, bySignedContent, refuse, type VerificationScheme } from './verification-types.ts';

const SIGNATURE_HEADER = 'x-hub-signature-256';
const SIGNATURE_PREFIX = 'sha256=';

export const githubScheme: VerificationScheme<GithubVerification> = {
  documentation: {
    signatureHeaders: '`X-Hub-Signature-256: sha256=<hex>`',
    signedContent: '`{body}`',
    secret: "the webhook's secret",
    eventId: '`X-GitHub-Delivery` (unsigned)',
    deliveryKey: 'the body',
  },
  withheldHeaders: () => [SIGNATURE_HEADER, 'x-hub-signature'],
  secretProblem: plainSecretProblem,
  verify(_config, { secrets, request }) {
    const header = headerValue(request.headers, SIGNATURE_HEADER);
    if (header === undefined) return refuse('missing_header');
    if (!header.startsWith(SIGNATURE_PREFIX)) return refuse('malformed_header');
    const received = decodeDigest(header.slice(SIGNATURE_PREFIX.length), 'hex', 32);
    if (received === undefined) return refuse('malformed_header');
    const signed = anySecretSigned(secrets, (secret) => hmacDigest('sha256', secret, [request.body]), [received]);
    return signed
      ? accept(eventIdFromHeaders(request.headers, ['x-github-delivery']), bySignedContent([request.body], false))
      : refuse('signature_mismatch');
  },
};
