// What `flowhook start` needs to decide before the components read their own
// configuration: where data lives, and which dependencies to embed.
import { startDataDir } from '../data-dir.ts';

export interface StartConfig {
  dataDir: string;
  /** Set: use this PostgreSQL; unset: run the embedded one. */
  databaseUrl?: string;
  embeddedPostgresPort: number;
  /** Set: use this Temporal; unset: run a dev server. */
  temporalAddress?: string;
  temporalPort: number;
  temporalUiPort: number;
  /** The environment the components read their configuration from. */
  env: Record<string, string | undefined>;
}

export function readStartConfig(env: Record<string, string | undefined> = process.env): StartConfig {
  return Object.freeze({
    dataDir: startDataDir(env),
    databaseUrl: env.FLOWHOOK_DATABASE_URL || undefined,
    embeddedPostgresPort: port(env, 'FLOWHOOK_EMBEDDED_POSTGRES_PORT', 7050),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalPort: port(env, 'FLOWHOOK_TEMPORAL_PORT', 7233),
    temporalUiPort: port(env, 'FLOWHOOK_TEMPORAL_UI_PORT', 8233),
    env: { ...env },
  });
}

function port(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name} must be a port number (1..65535), got "${raw}"`);
  return value;
}
