// The console's settings (FLOWHOOK_CONSOLE_*), read once with the rest of the
// engine's configuration. Off unless FLOWHOOK_CONSOLE_PORT is set (`flowhook
// start` sets it); loopback by default; beyond loopback only over TLS (the
// engine's certificate) or with FLOWHOOK_CONSOLE_INSECURE=true, since admin
// tokens and session cookies cross that network.
import { fileURLToPath } from 'node:url';
import type { SettingValues } from '../../common/configuration/configuration-table.ts';
import { isLoopbackHost } from '../../common/loopback-host.ts';
import type { EngineServerTls } from '../rpc/engine-tls.ts';

export interface ConsoleOidcSettings {
  issuer: string;
  clientId: string;
  /** Unset: a public client, PKCE alone. */
  clientSecret?: string;
  rolesClaim: string;
  scopes: readonly string[];
}

export interface ConsoleConfig {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** The engine's certificate (FLOWHOOK_ENGINE_TLS_CERT/_KEY): the console serves HTTPS with it. */
  tls?: EngineServerTls;
  /** FLOWHOOK_CONSOLE_PUBLIC_URL: the console as browsers open it, behind a proxy. */
  publicUrl?: string;
  sessionTtlMs: number;
  oidc?: ConsoleOidcSettings;
  /** The built pages (`vite build` of console/ writes them there). */
  assetsDir: string;
}

export type ConsoleSettings = SettingValues<
  | 'FLOWHOOK_CONSOLE_PORT'
  | 'FLOWHOOK_CONSOLE_HOST'
  | 'FLOWHOOK_CONSOLE_INSECURE'
  | 'FLOWHOOK_CONSOLE_PUBLIC_URL'
  | 'FLOWHOOK_CONSOLE_SESSION_TTL'
  | 'FLOWHOOK_CONSOLE_OIDC_ISSUER'
  | 'FLOWHOOK_CONSOLE_OIDC_CLIENT_ID'
  | 'FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET'
  | 'FLOWHOOK_CONSOLE_OIDC_ROLES_CLAIM'
  | 'FLOWHOOK_CONSOLE_OIDC_SCOPES'
>;

/** Where `npm install` (and `npm run build:console`) put the built console. */
export const CONSOLE_ASSETS_DIR = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/** Undefined when FLOWHOOK_CONSOLE_PORT is unset (or `off`): no console. */
export function readConsoleConfig(settings: ConsoleSettings, engine: { tls: EngineServerTls | undefined }): ConsoleConfig | undefined {
  const port = settings.FLOWHOOK_CONSOLE_PORT;
  if (port === undefined || port === 'off') {
    const stray = (['FLOWHOOK_CONSOLE_PUBLIC_URL', 'FLOWHOOK_CONSOLE_OIDC_ISSUER'] as const).filter((name) => settings[name] !== undefined);
    if (stray.length > 0) throw new Error(`${stray.join(' and ')} configure the console, which is off: set FLOWHOOK_CONSOLE_PORT to run it`);
    return undefined;
  }
  const host = settings.FLOWHOOK_CONSOLE_HOST;
  if (!engine.tls && !settings.FLOWHOOK_CONSOLE_INSECURE && !isLoopbackHost(host)) {
    throw new Error(
      `the console would listen on ${host} without TLS: admin tokens and session cookies would cross the network in clear text. ` +
        'Set FLOWHOOK_ENGINE_TLS_CERT and FLOWHOOK_ENGINE_TLS_KEY (the console serves the same certificate), keep FLOWHOOK_CONSOLE_HOST on a loopback address, ' +
        'or set FLOWHOOK_CONSOLE_INSECURE=true behind a proxy that terminates TLS',
    );
  }
  return Object.freeze({
    host,
    port,
    tls: engine.tls,
    publicUrl: settings.FLOWHOOK_CONSOLE_PUBLIC_URL,
    sessionTtlMs: settings.FLOWHOOK_CONSOLE_SESSION_TTL,
    oidc: readOidc(settings),
    assetsDir: CONSOLE_ASSETS_DIR,
  });
}

function readOidc(settings: ConsoleSettings): ConsoleOidcSettings | undefined {
  const issuer = settings.FLOWHOOK_CONSOLE_OIDC_ISSUER;
  if (issuer === undefined) {
    const others = (['FLOWHOOK_CONSOLE_OIDC_CLIENT_ID', 'FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET'] as const).filter((name) => settings[name] !== undefined);
    if (others.length > 0) throw new Error(`${others.join(', ')} need FLOWHOOK_CONSOLE_OIDC_ISSUER (the identity provider people sign in with)`);
    return undefined;
  }
  const clientId = settings.FLOWHOOK_CONSOLE_OIDC_CLIENT_ID;
  if (!clientId) throw new Error("FLOWHOOK_CONSOLE_OIDC_CLIENT_ID is required with FLOWHOOK_CONSOLE_OIDC_ISSUER: the console's client id at that identity provider");
  const scopes = settings.FLOWHOOK_CONSOLE_OIDC_SCOPES.includes('openid') ? settings.FLOWHOOK_CONSOLE_OIDC_SCOPES : ['openid', ...settings.FLOWHOOK_CONSOLE_OIDC_SCOPES];
  return Object.freeze({
    issuer,
    clientId,
    clientSecret: settings.FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET,
    rolesClaim: settings.FLOWHOOK_CONSOLE_OIDC_ROLES_CLAIM,
    scopes: Object.freeze(scopes),
  });
}
