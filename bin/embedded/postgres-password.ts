// The embedded cluster's superuser password: generated once, kept in a file
// only its owner can read, and never printed (the URL that contains it is
// handed to code, not to the console).
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

export function readOrCreatePassword(file: string): string {
  try {
    writeFileSync(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Tighten a copy that was restored or edited with looser permissions.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
  const password = readFileSync(file, 'utf8').trim();
  if (!password)
    throw new Error(`${file} is empty; delete it together with the PostgreSQL data directory to start afresh`);
  return password;
}
