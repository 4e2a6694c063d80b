// BENCH_ENGINE_TLS: run the bench with the engine's port over TLS (=1) or
// mutual TLS (=mutual), to measure what encrypting the facade → engine hop
// costs a call. Certificates are made fresh for each run with the tests'
// throwaway CAs, so the bench needs no files and none expire. Under mutual
// TLS the engine names a caller's service account by its certificate's CN, so
// each client gets a certificate for the account the stack provisioned for it.
import { readEngineClientTls, type EngineClientTls } from '../../common/engine-client-tls.ts';
import { createTestCertificates, type CertificateFiles } from '../support/test-certificates.ts';

export type BenchTlsMode = 'off' | 'tls' | 'mutual';

// The names provisionAccountsBeforeEngine gives the accounts (test/support/service-accounts.ts).
const ACCOUNTS = { facade: 'test-facade', worker: 'test-worker', admin: 'test-admin' } as const;

export function benchTlsMode(value: string | undefined): BenchTlsMode {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === '0' || v === 'false' || v === 'off') return 'off';
  if (v === '1' || v === 'true' || v === 'tls') return 'tls';
  if (v === 'mutual') return 'mutual';
  throw new Error(`BENCH_ENGINE_TLS=${value}: use 1 (TLS) or mutual (mutual TLS), or leave it unset`);
}

export interface BenchTls {
  mode: Exclude<BenchTlsMode, 'off'>;
  /** FLOWHOOK_ENGINE_TLS_* for the engine process. */
  engine: Record<string, string>;
  /** FLOWHOOK_ENGINE_CA (and under mutual TLS the client certificate) per client process. */
  facade: Record<string, string>;
  worker: Record<string, string>;
  /** The bench's own admin client's settings, for readEngineClientTls. */
  admin: Record<string, string>;
  remove(): Promise<void>;
}

export async function createBenchTls(mode: Exclude<BenchTlsMode, 'off'>): Promise<BenchTls> {
  const certs = await createTestCertificates();
  try {
    const trust = { FLOWHOOK_ENGINE_CA: certs.serverCa };
    const engine: Record<string, string> = {
      FLOWHOOK_ENGINE_TLS_CERT: certs.server.cert,
      FLOWHOOK_ENGINE_TLS_KEY: certs.server.key,
    };
    if (mode === 'tls') return { mode, engine, facade: trust, worker: trust, admin: trust, remove: certs.remove };
    const identity = (files: CertificateFiles) => ({
      ...trust,
      FLOWHOOK_ENGINE_CLIENT_CERT: files.cert,
      FLOWHOOK_ENGINE_CLIENT_KEY: files.key,
    });
    const [facade, worker, admin] = await Promise.all([
      certs.issueClient(ACCOUNTS.facade),
      certs.issueClient(ACCOUNTS.worker),
      certs.issueClient(ACCOUNTS.admin),
    ]);
    return {
      mode,
      engine: { ...engine, FLOWHOOK_ENGINE_TLS_CLIENT_CA: certs.clientCa },
      facade: identity(facade),
      worker: identity(worker),
      admin: identity(admin),
      remove: certs.remove,
    };
  } catch (error) {
    await certs.remove();
    throw error;
  }
}

/** The admin client's TLS settings for an https:// engine URL; undefined over h2c. */
export function adminTlsOf(tls: BenchTls | undefined, engineUrl: string): EngineClientTls | undefined {
  return tls ? readEngineClientTls(tls.admin, engineUrl) : undefined;
}
