// The console's settings (FLOWHOOK_CONSOLE_*), read once with the rest of the
// engine's configuration. Off unless FLOWHOOK_CONSOLE_PORT is set (`flowhook
// start` sets it); loopback by default. Beyond loopback admin tokens and
// session cookies cross a network, so there the console needs
//   - an https FLOWHOOK_CONSOLE_PUBLIC_URL: the one origin it answers (never
//     one taken from a Host header), Secure `__Host-` cookies and HSTS; and
//   - TLS on the listener itself (the engine's certificate), or
//     FLOWHOOK_CONSOLE_INSECURE=true: cleartext to a proxy that terminates TLS.
import { fileURLToPath } from 'node:url';
import type { SettingValues } from '../../../common/configuration/configuration-table.ts';
import { isLoopbackHost } from '../../../common/loopback-host.ts';
import type { EngineServerTls } from '../rpc/engine-tls.ts';
import { refuseWithout, serverPort } from '../http/server-settings.ts';

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
  /** FLOWHOOK_CONSOLE_OIDC_RECHECK: an OpenID Connect session's roles older than this are read again at the provider. */
  oidcRecheckMs: number;
  /** The built pages (`vite build` of console/ writes them there). */
  assetsDir: string;
}

export type ConsoleSettings = SettingValues<
  | 'FLOWHOOK_CONSOLE_PORT'
  | 'FLOWHOOK_CONSOLE_HOST'
  | 'FLOWHOOK_CONSOLE_INSECURE'
  | 'FLOWHOOK_CONSOLE_PUBLIC_URL'
  | 'FLOWHOOK_CONSOLE_SESSION_TTL'
  | 'FLOWHOOK_CONSOLE_OIDC_RECHECK'
  | 'FLOWHOOK_CONSOLE_OIDC_ISSUER'
  | 'FLOWHOOK_CONSOLE_OIDC_CLIENT_ID'
  | 'FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET'
  | 'FLOWHOOK_CONSOLE_OIDC_ROLES_CLAIM'
  | 'FLOWHOOK_CONSOLE_OIDC_SCOPES'
>;

/** Settings that mean nothing while the console is off. */
const SERVER_SETTINGS = ['FLOWHOOK_CONSOLE_PUBLIC_URL', 'FLOWHOOK_CONSOLE_OIDC_ISSUER'] as const;
/** Settings that mean nothing without FLOWHOOK_CONSOLE_OIDC_ISSUER. */
const OIDC_SETTINGS = ['FLOWHOOK_CONSOLE_OIDC_CLIENT_ID', 'FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET'] as const;

/** Where `npm install` (and `npm run build:console`) put the built console. */
export const CONSOLE_ASSETS_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/** Undefined when FLOWHOOK_CONSOLE_PORT is unset (or `off`): no console. */
export function readConsoleConfig(
  settings: ConsoleSettings,
  engine: { tls: EngineServerTls | undefined },
): ConsoleConfig | undefined {
  const port = serverPort(settings, 'FLOWHOOK_CONSOLE_PORT', SERVER_SETTINGS, 'the console');
  if (port === undefined) return undefined;
  const host = settings.FLOWHOOK_CONSOLE_HOST;
  const publicUrl = settings.FLOWHOOK_CONSOLE_PUBLIC_URL;
  if (!isLoopbackHost(host)) {
    if (publicUrl === undefined || !publicUrl.startsWith('https:')) {
      throw new Error(
        `the console would listen on ${host} with ${publicUrl === undefined ? 'no FLOWHOOK_CONSOLE_PUBLIC_URL' : `FLOWHOOK_CONSOLE_PUBLIC_URL ${publicUrl}`}: ` +
          'beyond loopback browsers must reach it over https at one fixed origin (Secure cookies, HSTS, no origin taken from a Host header). ' +
          'Set FLOWHOOK_CONSOLE_PUBLIC_URL to the https URL people open (the engine serving its TLS certificate, or a proxy terminating TLS), or keep FLOWHOOK_CONSOLE_HOST on a loopback address',
      );
    }
    if (!engine.tls && !settings.FLOWHOOK_CONSOLE_INSECURE) {
      throw new Error(
        `the console would listen on ${host} without TLS: admin tokens and session cookies would cross the network in clear text. ` +
          'Set FLOWHOOK_ENGINE_TLS_CERT and FLOWHOOK_ENGINE_TLS_KEY (the console serves the same certificate), keep FLOWHOOK_CONSOLE_HOST on a loopback address, ' +
          `or set FLOWHOOK_CONSOLE_INSECURE=true behind a proxy that terminates TLS for ${publicUrl}`,
      );
    }
  }
  return Object.freeze({
    host,
    port,
    tls: engine.tls,
    publicUrl,
    sessionTtlMs: settings.FLOWHOOK_CONSOLE_SESSION_TTL,
    oidc: readOidc(settings),
    oidcRecheckMs: settings.FLOWHOOK_CONSOLE_OIDC_RECHECK,
    assetsDir: CONSOLE_ASSETS_DIR,
  });
}

function readOidc(settings: ConsoleSettings): ConsoleOidcSettings | undefined {
  const issuer = settings.FLOWHOOK_CONSOLE_OIDC_ISSUER;
  if (issuer === undefined) {
    refuseWithout(settings, 'FLOWHOOK_CONSOLE_OIDC_ISSUER', OIDC_SETTINGS, 'the identity provider people sign in with');
    return undefined;
  }
  const clientId = settings.FLOWHOOK_CONSOLE_OIDC_CLIENT_ID;
  if (!clientId)
    throw new Error(
      "FLOWHOOK_CONSOLE_OIDC_CLIENT_ID is required with FLOWHOOK_CONSOLE_OIDC_ISSUER: the console's client id at that identity provider",
    );
  const scopes = settings.FLOWHOOK_CONSOLE_OIDC_SCOPES.includes('openid')
    ? settings.FLOWHOOK_CONSOLE_OIDC_SCOPES
    : ['openid', ...settings.FLOWHOOK_CONSOLE_OIDC_SCOPES];
  return Object.freeze({
    issuer,
    clientId,
    clientSecret: settings.FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET,
    rolesClaim: settings.FLOWHOOK_CONSOLE_OIDC_ROLES_CLAIM,
    scopes: Object.freeze(scopes),
  });
}
