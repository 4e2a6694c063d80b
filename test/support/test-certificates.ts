// Throwaway certificates for TLS tests, made with the openssl CLI in a temp
// directory: tests must not depend on files checked in (they expire) nor on
// the network. EC P-256 keys keep it to a few milliseconds per certificate.
// Two CAs as in a real deployment — one vouches for the engine, the other for
// its clients — plus an unrelated CA whose client must be turned away.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const OPENSSL = '/usr/bin/openssl';

export interface CertificateFiles {
  cert: string;
  key: string;
}

export interface TestCertificates {
  dir: string;
  /** Issued the engine's certificate: what clients trust (FLOWHOOK_ENGINE_CA). */
  serverCa: string;
  /** CN=localhost, SAN DNS:localhost and IP:127.0.0.1. */
  server: CertificateFiles;
  /** Issued the client certificates: what the engine trusts (FLOWHOOK_ENGINE_TLS_CLIENT_CA). */
  clientCa: string;
  /** CN=flowhook-facade, from the client CA. */
  facadeClient: CertificateFiles;
  /** CN=flowhook-worker, from the client CA. */
  workerClient: CertificateFiles;
  /** CN=flowhook-facade as well, but from an unrelated CA: the name alone must not get in. */
  strangerClient: CertificateFiles;
  /** Another client certificate from the client CA, CN=commonName (mutual TLS names the service account by its CN). */
  issueClient(commonName: string): Promise<CertificateFiles>;
  remove(): Promise<void>;
}

// Only the extensions each kind of certificate needs; -config keeps the
// system's openssl.cnf from adding its own.
const CONFIG = `
[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

export async function createTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'flowhook-tls-'));
  const config = join(dir, 'openssl.cnf');
  await writeFile(config, CONFIG);

  /** One openssl call per certificate: new key, and self-signed or signed by `issuer`. */
  async function certificate(
    name: string,
    subject: string,
    extensions: 'ca' | 'server' | 'client',
    issuer?: CertificateFiles,
  ): Promise<CertificateFiles> {
    const files = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
    const signing = issuer ? ['-CA', issuer.cert, '-CAkey', issuer.key] : [];
    await run(OPENSSL, [
      'req',
      '-x509',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-noenc',
      '-keyout',
      files.key,
      '-out',
      files.cert,
      '-days',
      '2',
      '-subj',
      subject,
      '-config',
      config,
      '-extensions',
      extensions,
      ...signing,
    ]);
    return files;
  }

  const [serverCa, clientCa, strangerCa] = await Promise.all([
    certificate('server-ca', '/CN=flowhook test server CA', 'ca'),
    certificate('client-ca', '/CN=flowhook test client CA', 'ca'),
    certificate('stranger-ca', '/CN=unrelated test CA', 'ca'),
  ]);
  const [server, facadeClient, workerClient, strangerClient] = await Promise.all([
    certificate('server', '/CN=localhost', 'server', serverCa),
    certificate('facade', '/O=flowhook tests/CN=flowhook-facade', 'client', clientCa),
    certificate('worker', '/O=flowhook tests/CN=flowhook-worker', 'client', clientCa),
    certificate('stranger', '/O=flowhook tests/CN=flowhook-facade', 'client', strangerCa),
  ]);
  return {
    dir,
    serverCa: serverCa.cert,
    server,
    clientCa: clientCa.cert,
    facadeClient,
    workerClient,
    strangerClient,
    issueClient: (commonName) =>
      certificate(`client-${commonName}`, `/O=flowhook tests/CN=${commonName}`, 'client', clientCa),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
