// The data directory holds the tokens, the keys, the embedded cluster's
// password and Temporal's SQLite file: only its owner may read any of it.
// Checked at every start, not only when a file is made: a restored backup, a
// copy with `cp -r`, an editor or a permissive umask leaves files readable by
// others, and nothing else would notice.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;
/**
 * Group search (no listing) is what the embedded PostgreSQL needs to enter the
 * directory when we run as root and it runs as another account
 * (bin/embedded/postgres-os-user.ts grants it again after we take it away).
 */
const TOLERATED_ON_DIR = 0o010;

/**
 * Makes `dataDir` 0700 and every file directly in it 0600; `warn` names each
 * one that was looser. Subdirectories are left alone: the private directory
 * already closes them, and they hold programs (bin/, pip/) or a PostgreSQL
 * cluster, which checks its own permissions.
 */
export function keepDataDirPrivate(dataDir: string, warn: (message: string) => void): void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  const loosened: string[] = [];
  const dirMode = lstatSync(dataDir).mode & 0o7777;
  if (dirMode !== PRIVATE_DIR) {
    chmodSync(dataDir, PRIVATE_DIR);
    if (dirMode & 0o077 & ~TOLERATED_ON_DIR)
      loosened.push(`${dataDir} (was ${octal(dirMode)}, now ${octal(PRIVATE_DIR)})`);
  }
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    // Symbolic links (bin/temporal) point at programs, not at our state.
    if (!entry.isFile()) continue;
    const path = join(dataDir, entry.name);
    const mode = lstatSync(path).mode & 0o7777;
    if ((mode & 0o077) === 0) continue;
    chmodSync(path, PRIVATE_FILE);
    loosened.push(`${path} (was ${octal(mode)}, now ${octal(PRIVATE_FILE)})`);
  }
  if (loosened.length) {
    warn(
      `others could read flowhook's private files; tightened: ${loosened.join(', ')}. Check who may have copied them (tokens and keys in there may need rotating).`,
    );
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
