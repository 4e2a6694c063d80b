// Reading the metrics settings. Each component's config.ts calls these with
// the variable names it reads (so `flowhook <command> --help` and its test see
// every name where the component's configuration is read).

export type Env = Record<string, string | undefined>;

export interface MetricsListenerSettings {
  host: string;
  /** 0: a free port (tests). */
  port: number;
}

const MIN_TOKEN_LENGTH = 16;

/** The scrape token: unset means loopback clients only (metrics-access.ts). */
export function readMetricsToken(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < MIN_TOKEN_LENGTH || /\s/.test(raw)) throw new Error(`${name} must have at least ${MIN_TOKEN_LENGTH} characters and no white space`);
  return raw;
}

/** A metrics port: a number (0 = a free port), or `off`; undefined when off. */
export function readMetricsListener(env: Env, portName: string, hostName: string, defaultPort: number): MetricsListenerSettings | undefined {
  const raw = (env[portName] ?? '').trim();
  if (raw.toLowerCase() === 'off') return undefined;
  let port = defaultPort;
  if (raw !== '') {
    port = Number(raw);
    if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`${portName} must be a port number (0..65535) or off, got "${env[portName]}"`);
  }
  return Object.freeze({ host: env[hostName] || '127.0.0.1', port });
}
