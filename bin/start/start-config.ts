// What `flowhook start` needs to decide before the components read their own configuration:
// where data lives, which dependencies to embed, and the local defaults it gives the components.
// Read through the configuration table (common/configuration/); the components then read theirs
// from the same environment, with what `start` adds to it.
import { startDataDir } from '../data-dir.ts';
import type { Settings } from '../../common/configuration/configuration-table.ts';
import { readSettings, type Env } from '../../common/configuration/read-settings.ts';

export interface StartConfig {
  dataDir: string;
  /** Set: use this PostgreSQL; unset: run the embedded one. */
  databaseUrl?: string;
  embeddedPostgresPort: number;
  /** Set: use this Temporal; unset: run a dev server. */
  temporalAddress?: string;
  temporalPort: number;
  temporalUiPort: number;
  /** TEMPORAL_CLI: the Temporal CLI to run the dev server with; unset: found or installed. */
  temporalCli?: string;
  /** A local default: the endpoint listens on loopback until FLOWHOOK_FACADE_HOST opens it. */
  facadeHost: string;
  /** Set: where the facade and worker reach the engine; unset: the engine `start` runs. */
  engineUrl?: string;
  /** The variables `start` reads to decide what it adds (its key files, its codec server). */
  settings: Settings<'start'>;
  /** The environment the components read their configuration from. */
  env: Env;
}

const LOCAL_FACADE_HOST = '127.0.0.1';

export function readStartConfig(env: Env = process.env): StartConfig {
  const settings = readSettings(env, 'start');
  return Object.freeze({
    dataDir: startDataDir(settings.FLOWHOOK_DATA_DIR),
    databaseUrl: settings.FLOWHOOK_DATABASE_URL,
    embeddedPostgresPort: settings.FLOWHOOK_EMBEDDED_POSTGRES_PORT,
    temporalAddress: settings.TEMPORAL_ADDRESS,
    temporalPort: settings.FLOWHOOK_TEMPORAL_PORT,
    temporalUiPort: settings.FLOWHOOK_TEMPORAL_UI_PORT,
    temporalCli: settings.TEMPORAL_CLI,
    facadeHost: settings.FLOWHOOK_FACADE_HOST ?? LOCAL_FACADE_HOST,
    engineUrl: settings.FLOWHOOK_ENGINE_URL,
    settings,
    env: { ...env },
  });
}
