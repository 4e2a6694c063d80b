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
export const localPayloadKeyFile = localKeyFile('FLOWHOOK_PAYLOAD_KEY', LOCAL_PAYLOAD_KEY_FILE, (path) =>
  writeKeyFile(path, [randomBytes(32)]),
);

/**
 * The secret store's key file (connections' secrets are encrypted under it): made once, mode 0600.
 * Losing it makes the stored secrets unreadable; `flowhook secret-store rotate` adds a newer key to it.
 */
export const localSecretsKeyFile = localKeyFile('FLOWHOOK_SECRETS_KEY', 'secrets-key', (path) =>
  writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 }),
);

/**
 * A local key file's finder: a configured key (`variable`) wins, which names no file (undefined); then a
 * configured key file (`variable`_FILE); otherwise `name` under the data directory, made by `create` the first time.
 */
function localKeyFile<K extends 'FLOWHOOK_PAYLOAD_KEY' | 'FLOWHOOK_SECRETS_KEY'>(
  variable: K,
  name: string,
  create: (path: string) => void,
) {
  return (dataDir: string, settings: Partial<SettingValues<K | `${K}_FILE`>>): string | undefined => {
    if (settings[variable]) return undefined;
    const configured = settings[`${variable}_FILE`];
    if (configured) return configured;
    const path = join(dataDir, name);
    if (!existsSync(path)) create(path);
    return path;
  };
}
