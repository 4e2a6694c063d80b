// TLS for the engine's RPC port. Everything the engine serves is sensitive —
// access keys, flow secrets, webhook payloads, the service and admin tokens —
// so once the port leaves loopback it must be encrypted, and optionally only
// callers holding a certificate from our own client CA may connect at all
// (mutual TLS). Certificate files are read once at startup; a bad one stops the
// engine with the variable and path named, never with the file's contents.
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { SettingValues } from '../../../common/configuration/configuration-table.ts';
import { isLoopbackHost } from '../../../common/loopback-host.ts';
import { readCertificateAndKey, readPemCertificates } from '../../../common/pem-files.ts';

export interface EngineServerTls {
  /** PEM certificate chain, leaf first (FLOWHOOK_ENGINE_TLS_CERT). */
  cert: Buffer;
  /** PEM private key of the leaf (FLOWHOOK_ENGINE_TLS_KEY). */
  key: Buffer;
  /** PEM CA bundle (FLOWHOOK_ENGINE_TLS_CLIENT_CA); when set, every client must present a certificate it issued. */
  clientCa?: Buffer;
}

export interface ClientIdentity {
  /** The subject's CN, e.g. `flowhook-facade`; undefined when the certificate has none. */
  commonName: string | undefined;
  /** The whole subject, e.g. `O=Acme, CN=flowhook-facade`. */
  subject: string;
}

export type EngineServerTlsSettings = Partial<
  SettingValues<'FLOWHOOK_ENGINE_TLS_CERT' | 'FLOWHOOK_ENGINE_TLS_KEY' | 'FLOWHOOK_ENGINE_TLS_CLIENT_CA'>
>;

/** TLS settings from the engine's configuration; undefined when neither certificate nor key is set. */
export function readEngineServerTls(settings: EngineServerTlsSettings): EngineServerTls | undefined {
  const clientCaPath = settings.FLOWHOOK_ENGINE_TLS_CLIENT_CA || undefined;
  const identity = readCertificateAndKey(settings, 'FLOWHOOK_ENGINE_TLS_CERT', 'FLOWHOOK_ENGINE_TLS_KEY');
  if (identity === undefined) {
    if (clientCaPath !== undefined)
      throw new Error(
        'FLOWHOOK_ENGINE_TLS_CLIENT_CA requires TLS: set FLOWHOOK_ENGINE_TLS_CERT and FLOWHOOK_ENGINE_TLS_KEY too',
      );
    return undefined;
  }
  const tls: EngineServerTls = { cert: identity.cert, key: identity.key };
  if (clientCaPath !== undefined) tls.clientCa = readPemCertificates('FLOWHOOK_ENGINE_TLS_CLIENT_CA', clientCaPath).pem;
  return tls;
}

/**
 * Refuses to serve in clear text beyond loopback: without TLS, anyone on the
 * path reads the tokens and can then call the engine themselves.
 * FLOWHOOK_ENGINE_INSECURE=true is the deliberate way out for a trusted network.
 */
export function checkEngineExposure(options: {
  host: string;
  tls: EngineServerTls | undefined;
  insecure: boolean;
}): void {
  if (options.tls !== undefined || options.insecure || isLoopbackHost(options.host)) return;
  throw new Error(
    `the engine would listen on ${options.host || 'every interface'} without TLS: access keys, flow secrets, webhook payloads and tokens would cross the network in clear text. ` +
      'Set FLOWHOOK_ENGINE_TLS_CERT and FLOWHOOK_ENGINE_TLS_KEY (PEM files), keep FLOWHOOK_ENGINE_HOST on a loopback address, ' +
      'or set FLOWHOOK_ENGINE_INSECURE=true if the network in between is one you trust',
  );
}

type EngineRequestHandler = (request: Http2ServerRequest, response: Http2ServerResponse) => void;

/** h2c as before without TLS; with it, HTTP/2 over TLS 1.2+ only (no HTTP/1.1 fallback) and mTLS when a client CA is set. */
export function createEngineHttp2Server(
  handler: EngineRequestHandler,
  tls: EngineServerTls | undefined,
): Http2Server | Http2SecureServer {
  if (tls === undefined) return createServer(handler);
  const mutual = tls.clientCa !== undefined;
  return createSecureServer(
    {
      cert: tls.cert,
      key: tls.key,
      minVersion: 'TLSv1.2',
      allowHTTP1: false,
      ALPNProtocols: ['h2'],
      // `ca` replaces the default roots for verifying clients: only our client CA counts.
      ...(mutual ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
    },
    handler,
  );
}

/**
 * Why a handshake was refused, for the log of the server's 'tlsClientError'
 * event: Node reports a client certificate from the wrong CA as a mere
 * ECONNRESET, the certificate check's verdict (UNABLE_TO_VERIFY_LEAF_SIGNATURE,
 * CERT_HAS_EXPIRED, …) is on the socket.
 */
export function tlsRefusalReason(error: Error, socket: TLSSocket): string {
  const verdict = (socket as { authorizationError?: Error | string }).authorizationError;
  if (verdict)
    return typeof verdict === 'string' ? verdict : ((verdict as NodeJS.ErrnoException).code ?? verdict.message);
  return (error as NodeJS.ErrnoException).code ?? error.message;
}

// One TLS connection carries many requests; its certificate is parsed once.
const identities = new WeakMap<object, ClientIdentity | null>();

interface PeerSocket {
  authorized?: boolean;
  getPeerCertificate?: () => { raw?: Buffer } | null;
}

/** The verified client certificate's subject (mTLS), or undefined without one. */
export function clientIdentityOf(request: Http2ServerRequest | IncomingMessage): ClientIdentity | undefined {
  // HTTP/2: the TLS socket belongs to the session every stream of the connection shares.
  const owner: object | undefined = 'stream' in request ? request.stream.session : request.socket;
  if (owner === undefined) return undefined;
  let identity = identities.get(owner);
  if (identity === undefined) {
    const socket = ('stream' in request ? request.stream.session?.socket : request.socket) as PeerSocket | undefined;
    identity = socket ? peerIdentity(socket) : null;
    identities.set(owner, identity);
  }
  return identity ?? undefined;
}

function peerIdentity(socket: PeerSocket): ClientIdentity | null {
  // `authorized` is true only when the certificate chained to the client CA.
  if (socket.authorized !== true || typeof socket.getPeerCertificate !== 'function') return null;
  const raw = socket.getPeerCertificate()?.raw;
  if (!raw) return null;
  const rdns = new X509Certificate(raw).subject.split('\n');
  const commonName = rdns.find((rdn) => rdn.startsWith('CN='))?.slice(3);
  return Object.freeze({ commonName, subject: rdns.join(', ') });
}
