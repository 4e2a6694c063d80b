// The keys of a local installation, generated once and kept in 0600 files
// under the data directory: the key that encrypts doNotLogPayload executions'
// payloads and the secret store's key file. Configured values
// (FLOWHOOK_PAYLOAD_KEY, FLOWHOOK_SECRETS_KEY[_FILE]) win. The service
// accounts' tokens are made in local-service-accounts.ts.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Base64 of 32 random bytes; losing it makes the encrypted executions' payloads unreadable. */
export function localPayloadKey(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const path = join(dataDir, 'payload-key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const key = randomBytes(32).toString('base64');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * The secret store's key file (connections' secrets are encrypted under it): made once, mode 0600.
 * Losing it makes the stored secrets unreadable; `flowhook secrets rotate-key` adds a newer key to it.
 */
export function localSecretsKeyFile(dataDir: string, env: Record<string, string | undefined>): string | undefined {
  if (env.FLOWHOOK_SECRETS_KEY) return undefined;
  if (env.FLOWHOOK_SECRETS_KEY_FILE) return env.FLOWHOOK_SECRETS_KEY_FILE;
  const path = join(dataDir, 'secrets-key');
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return path;
}
