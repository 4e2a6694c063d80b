// Reading the PEM files that TLS settings point at, once, at startup. A bad
// file should stop the process with a message naming the variable and the path
// — not surface later as an opaque handshake failure — and a message must never
// echo what the file holds: a private key in a log is a leaked key.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface PemCertificates {
  pem: Buffer;
  /** In file order; the first is the leaf of a chain, or one CA of a bundle. */
  certificates: X509Certificate[];
}

export interface PemPrivateKey {
  pem: Buffer;
  key: KeyObject;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** One or more certificates (a chain or a CA bundle) from the file the variable names. */
export function readPemCertificates(variable: string, path: string): PemCertificates {
  const pem = readNamedFile(variable, path);
  const blocks = pem.toString('latin1').match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0)
    throw new Error(`${variable} (${path}) holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const certificates = blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new Error(
        `${variable} (${path}): certificate ${index + 1} of ${blocks.length} is not a valid X.509 certificate`,
      );
    }
  });
  return { pem, certificates };
}

/** An unencrypted PEM private key (PKCS#8, PKCS#1 or SEC1) from the file the variable names. */
export function readPemPrivateKey(variable: string, path: string): PemPrivateKey {
  const pem = readNamedFile(variable, path);
  try {
    return { pem, key: createPrivateKey(pem) };
  } catch {
    // The crypto error is not passed on: it adds nothing an operator can act on.
    throw new Error(`${variable} (${path}) is not an unencrypted PEM private key`);
  }
}

export interface CertificateAndKey {
  /** The certificate chain, leaf first. */
  cert: Buffer;
  key: Buffer;
  leaf: X509Certificate;
}

/**
 * A certificate and its key from two variables that come together: neither set
 * is undefined, one alone is an error naming the other, and a key that does not
 * belong to the certificate is caught here rather than in every handshake.
 */
export function readCertificateAndKey<C extends string, K extends string>(
  paths: { readonly [N in C | K]?: string },
  certVariable: C,
  keyVariable: K,
): CertificateAndKey | undefined {
  const certPath = paths[certVariable] || undefined;
  const keyPath = paths[keyVariable] || undefined;
  if (certPath === undefined && keyPath === undefined) return undefined;
  if (certPath === undefined)
    throw new Error(
      `${keyVariable} is set but ${certVariable} is not: set both (PEM certificate and its private key) or neither`,
    );
  if (keyPath === undefined)
    throw new Error(
      `${certVariable} is set but ${keyVariable} is not: set both (PEM certificate and its private key) or neither`,
    );
  const { pem: cert, certificates } = readPemCertificates(certVariable, certPath);
  const { pem: key, key: privateKey } = readPemPrivateKey(keyVariable, keyPath);
  const leaf = certificates[0];
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new Error(
      `${keyVariable} (${keyPath}) is not the private key of the certificate in ${certVariable} (${certPath})`,
    );
  }
  return { cert, key, leaf };
}

function readNamedFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable by this process'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be read (${code ?? 'unknown error'})`;
    throw new Error(`${variable} points at ${path}, which ${reason}`);
  }
}
