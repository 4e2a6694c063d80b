// Where flowhook keeps local state (embedded PostgreSQL, Temporal's SQLite,
// the generated tokens and keys): FLOWHOOK_DATA_DIR, else `.flowhook` in the
// directory `flowhook start` runs in (`npm start` runs in the checkout).
//
// Admin commands look for the admin token there too, and — when the current
// directory has no `.flowhook` — in the checkout this executable belongs to,
// so `flowhook …` linked onto PATH (`npm link`) works from any directory.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHECKOUT_DATA_DIR = fileURLToPath(new URL('../.flowhook', import.meta.url));
const LOCAL = '.flowhook';

/** `configured`: FLOWHOOK_DATA_DIR, as the process's configuration read it. */
export function startDataDir(configured: string | undefined): string {
  return resolve(configured || LOCAL);
}

export function cliDataDir(configured: string | undefined, cwd = process.cwd()): string {
  if (configured) return resolve(configured);
  const local = resolve(cwd, LOCAL);
  return existsSync(local) ? local : CHECKOUT_DATA_DIR;
}
