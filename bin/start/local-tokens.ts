// The keys of a local installation, generated once and kept in 0600 files
// under the data directory: the key that encrypts doNotLogPayload executions'
// payloads (a key ring) and the secret store's key file. Configured values
// (FLOWHOOK_PAYLOAD_KEY[_FILE], FLOWHOOK_SECRETS_KEY[_FILE]) win. The service
// accounts' tokens are made in local-service-accounts.ts.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingValues } from '../../common/configuration/configuration-table.ts';
import { writeKeyFile } from '../../workflows/codec/payload-keyring.ts';

/** Under the data directory; `flowhook payload-key rotate` finds it there too. */
export const LOCAL_PAYLOAD_KEY_FILE = 'payload-key';

/**
 * The payload key file, a ring (newest key first; workflows/codec/payload-keyring.ts): made once, mode 0600.
 * It is the `payload-key` file earlier releases wrote with their single key, which is already a ring of one,
 * so an existing installation keeps its key. Losing it makes the encrypted executions' payloads unreadable;
 * `flowhook payload-key rotate` puts a newer key first in it. A configured FLOWHOOK_PAYLOAD_KEY wins (undefined).
 */
export function localPayloadKeyFile(dataDir: string, settings: Partial<SettingValues<'FLOWHOOK_PAYLOAD_KEY' | 'FLOWHOOK_PAYLOAD_KEY_FILE'>>): string | undefined {
  if (settings.FLOWHOOK_PAYLOAD_KEY) return undefined;
  if (settings.FLOWHOOK_PAYLOAD_KEY_FILE) return settings.FLOWHOOK_PAYLOAD_KEY_FILE;
  const path = join(dataDir, LOCAL_PAYLOAD_KEY_FILE);
  if (!existsSync(path)) writeKeyFile(path, [randomBytes(32)]);
  return path;
}

/**
 * The secret store's key file (connections' secrets are encrypted under it): made once, mode 0600.
 * Losing it makes the stored secrets unreadable; `flowhook secret-store rotate` adds a newer key to it.
 */
export function localSecretsKeyFile(dataDir: string, settings: Partial<SettingValues<'FLOWHOOK_SECRETS_KEY' | 'FLOWHOOK_SECRETS_KEY_FILE'>>): string | undefined {
  if (settings.FLOWHOOK_SECRETS_KEY) return undefined;
  if (settings.FLOWHOOK_SECRETS_KEY_FILE) return settings.FLOWHOOK_SECRETS_KEY_FILE;
  const path = join(dataDir, 'secrets-key');
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return path;
}
