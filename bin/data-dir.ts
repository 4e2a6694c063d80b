// Where flowhook keeps local state (embedded PostgreSQL, Temporal's SQLite,
// the generated tokens and keys): FLOWHOOK_DATA_DIR, else `.flowhook` in the
// checkout this executable belongs to — not in the current directory, so
// `flowhook …` linked onto PATH (`npm link`) finds the admin token that
// `flowhook start` wrote from wherever it is typed.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHECKOUT_DATA_DIR = fileURLToPath(new URL('../.flowhook', import.meta.url));

export function dataDirFrom(env: Record<string, string | undefined>): string {
  return env.FLOWHOOK_DATA_DIR ? resolve(env.FLOWHOOK_DATA_DIR) : CHECKOUT_DATA_DIR;
}
