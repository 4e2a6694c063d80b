// `flowhook start` with the embedded dev server runs the engine's codec server
// next to the Web UI, so that on a fresh clone an operator can read a
// doNotLogPayload execution in the UI after signing in. Decided before the
// dev server starts: its UI is told the codec endpoint at launch
// (--ui-codec-endpoint), and the codec allows that UI's origin.
import type { SettingValues } from '../../common/configuration/configuration-table.ts';
import { assertPortFree } from '../embedded/free-port.ts';

export interface LocalCodec {
  /** What the UI calls, e.g. http://127.0.0.1:8234. */
  endpoint: string;
  /** Variables for the engine: FLOWHOOK_CODEC_PORT and FLOWHOOK_CODEC_ALLOWED_ORIGINS. */
  env: Record<string, string>;
}

export type LocalCodecSettings = SettingValues<
  'FLOWHOOK_CODEC_PORT' | 'FLOWHOOK_CODEC_HOST' | 'FLOWHOOK_CODEC_ALLOWED_ORIGINS' | 'FLOWHOOK_ENGINE_TLS_CERT'
>;

/**
 * Undefined when FLOWHOOK_CODEC_PORT=off. Default port: the Web UI's + 1 (8234). The UI's own
 * origin is allowed under both loopback names, since a user may open either; each works with a
 * codec endpoint of the same name (the session cookie is not sent between 127.0.0.1 and localhost).
 */
export async function planLocalCodec(settings: LocalCodecSettings, uiPort: number): Promise<LocalCodec | undefined> {
  const configured = settings.FLOWHOOK_CODEC_PORT;
  if (configured === 'off') return undefined;
  // The UI is told the port before the engine listens: it must be a fixed one, not 0 (a free port).
  if (configured === 0)
    throw new Error(
      'FLOWHOOK_CODEC_PORT must be a fixed port for flowhook start (1..65535) or off: the Web UI is told the codec endpoint before the engine listens',
    );
  const port = configured ?? uiPort + 1;
  const host = settings.FLOWHOOK_CODEC_HOST;
  await assertPortFree(host, port, `the codec server (FLOWHOOK_CODEC_PORT=${port}; FLOWHOOK_CODEC_PORT=off runs none)`);
  const scheme = settings.FLOWHOOK_ENGINE_TLS_CERT ? 'https' : 'http';
  const endpointHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const origins = settings.FLOWHOOK_CODEC_ALLOWED_ORIGINS ?? [
    `http://127.0.0.1:${uiPort}`,
    `http://localhost:${uiPort}`,
  ];
  return {
    endpoint: `${scheme}://${endpointHost}:${port}`,
    env: { FLOWHOOK_CODEC_PORT: String(port), FLOWHOOK_CODEC_ALLOWED_ORIGINS: origins.join(',') },
  };
}
