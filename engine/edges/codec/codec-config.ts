// The codec server's settings (FLOWHOOK_CODEC_*), read once with the rest of
// the engine's configuration. The codec server decrypts doNotLogPayload
// payloads, so it is off unless FLOWHOOK_CODEC_PORT is set, listens on
// loopback by default, and answers browsers only from the origins listed.
import type { SettingValues } from '../../../common/configuration/configuration-table.ts';
import { isLoopbackHost } from '../../../common/loopback-host.ts';
import type { EngineServerTls } from '../rpc/engine-tls.ts';
import { refuseWithout, serverPort } from '../http/server-settings.ts';

export interface CodecOAuthSettings {
  /** FLOWHOOK_CODEC_OAUTH_ISSUER: the `iss` of operators' access tokens (https; http only on loopback). */
  issuer: string;
  /** FLOWHOOK_CODEC_OAUTH_JWKS_URI; unset: the issuer's OpenID discovery document names it. */
  jwksUri?: string;
  /** FLOWHOOK_CODEC_OAUTH_AUDIENCE: accepted `aud` values. */
  audiences: string[];
  /** FLOWHOOK_CODEC_OAUTH_GROUP: the operator group (or role) a token must name. */
  group: string;
  /** FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM: the claim that lists groups (default `groups`). */
  groupClaim: string;
}

export interface CodecServerConfig {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** Browser origins (scheme://host:port) whose pages may call the codec server: the Temporal UI's. */
  allowedOrigins: readonly string[];
  /** How long a session made on the login page lasts. */
  sessionTtlMs: number;
  /** The engine's certificate (FLOWHOOK_ENGINE_TLS_CERT/_KEY): the codec server serves HTTPS with it. */
  tls?: EngineServerTls;
  oauth?: CodecOAuthSettings;
}

/** Not the variable's default: setting it without an issuer is refused like the other OAuth settings. */
const DEFAULT_GROUP_CLAIM = 'groups';
/** Settings that mean nothing while the codec server is off. */
const SERVER_SETTINGS = ['FLOWHOOK_CODEC_ALLOWED_ORIGINS', 'FLOWHOOK_CODEC_OAUTH_ISSUER'] as const;
/** Settings that mean nothing without FLOWHOOK_CODEC_OAUTH_ISSUER. */
const OAUTH_SETTINGS = [
  'FLOWHOOK_CODEC_OAUTH_AUDIENCE',
  'FLOWHOOK_CODEC_OAUTH_GROUP',
  'FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM',
  'FLOWHOOK_CODEC_OAUTH_JWKS_URI',
] as const;

export type CodecSettings = SettingValues<
  | 'FLOWHOOK_CODEC_PORT'
  | 'FLOWHOOK_CODEC_HOST'
  | 'FLOWHOOK_CODEC_ALLOWED_ORIGINS'
  | 'FLOWHOOK_CODEC_SESSION_TTL'
  | 'FLOWHOOK_CODEC_OAUTH_ISSUER'
  | 'FLOWHOOK_CODEC_OAUTH_AUDIENCE'
  | 'FLOWHOOK_CODEC_OAUTH_GROUP'
  | 'FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM'
  | 'FLOWHOOK_CODEC_OAUTH_JWKS_URI'
>;

/** Undefined when FLOWHOOK_CODEC_PORT is unset (or `off`): no codec server. */
export function readCodecServerConfig(
  settings: CodecSettings,
  engine: { tls: EngineServerTls | undefined; insecure: boolean },
): CodecServerConfig | undefined {
  const port = serverPort(settings, 'FLOWHOOK_CODEC_PORT', SERVER_SETTINGS, 'the codec server');
  if (port === undefined) return undefined;
  const host = settings.FLOWHOOK_CODEC_HOST;
  // The same rule as the engine port: decrypted payloads and admin tokens never cross a network in clear text.
  if (!engine.tls && !engine.insecure && !isLoopbackHost(host)) {
    throw new Error(
      `the codec server would listen on ${host} without TLS: decrypted payloads and admin tokens would cross the network in clear text. ` +
        'Set FLOWHOOK_ENGINE_TLS_CERT and FLOWHOOK_ENGINE_TLS_KEY (the codec server serves the same certificate), keep FLOWHOOK_CODEC_HOST on a loopback address, ' +
        'or set FLOWHOOK_ENGINE_INSECURE=true if the network in between is one you trust',
    );
  }
  return Object.freeze({
    host,
    port,
    allowedOrigins: Object.freeze(settings.FLOWHOOK_CODEC_ALLOWED_ORIGINS ?? []),
    sessionTtlMs: settings.FLOWHOOK_CODEC_SESSION_TTL,
    tls: engine.tls,
    oauth: readOAuth(settings),
  });
}

function readOAuth(settings: CodecSettings): CodecOAuthSettings | undefined {
  const issuer = settings.FLOWHOOK_CODEC_OAUTH_ISSUER;
  if (issuer === undefined) {
    refuseWithout(settings, 'FLOWHOOK_CODEC_OAUTH_ISSUER', OAUTH_SETTINGS, "the issuer of operators' access tokens");
    return undefined;
  }
  const audiences = settings.FLOWHOOK_CODEC_OAUTH_AUDIENCE ?? [];
  if (audiences.length === 0)
    throw new Error(
      "FLOWHOOK_CODEC_OAUTH_AUDIENCE is required with FLOWHOOK_CODEC_OAUTH_ISSUER: the aud value(s) of operators' access tokens",
    );
  const group = settings.FLOWHOOK_CODEC_OAUTH_GROUP;
  if (!group)
    throw new Error(
      'FLOWHOOK_CODEC_OAUTH_GROUP is required with FLOWHOOK_CODEC_OAUTH_ISSUER: only members of this operator group (or role) may decode',
    );
  return Object.freeze({
    issuer,
    jwksUri: settings.FLOWHOOK_CODEC_OAUTH_JWKS_URI,
    audiences,
    group,
    groupClaim: settings.FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM ?? DEFAULT_GROUP_CLAIM,
  });
}
