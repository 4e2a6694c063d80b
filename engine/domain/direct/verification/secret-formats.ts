// What a signing secret must look like, per scheme, so `hook-secret set` can
// refuse a pasted API key or a private key before any provider call fails.
// Verification itself never explains a secret problem: a secret that cannot
// sign simply verifies nothing.

/** A shared HMAC secret used as its UTF-8 bytes: any text, but pasted whitespace is nearly always a mistake. */
export function plainSecretProblem(secret: string): string | undefined {
  if (secret.length === 0) return 'the secret is empty';
  if (secret.trim() !== secret) return 'the secret starts or ends with whitespace (a pasted newline?)';
  return undefined;
}
