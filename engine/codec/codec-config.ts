// The codec server's settings (FLOWHOOK_CODEC_*), read once with the rest of
// the engine's configuration. The codec server decrypts doNotLogPayload
// payloads, so it is off unless FLOWHOOK_CODEC_PORT is set, listens on
// loopback by default, and answers browsers only from the origins listed.
import type { Env } from '../../common/env-values.ts';
import { parseDuration } from '../../workflows/shared/index.ts';
import { isLoopbackHost, type EngineServerTls } from '../rpc/engine-tls.ts';

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

const DEFAULT_SESSION_TTL_MS = 60 * 60 * 1000;
const MAX_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

/** Undefined when FLOWHOOK_CODEC_PORT is unset (or `off`): no codec server. */
export function readCodecServerConfig(env: Env, engine: { tls: EngineServerTls | undefined; insecure: boolean }): CodecServerConfig | undefined {
  const rawPort = env.FLOWHOOK_CODEC_PORT?.trim();
  if (rawPort === undefined || rawPort === '' || rawPort.toLowerCase() === 'off') {
    const stray = ['FLOWHOOK_CODEC_ALLOWED_ORIGINS', 'FLOWHOOK_CODEC_OAUTH_ISSUER'].filter((name) => env[name]);
    if (stray.length > 0) throw new Error(`${stray.join(' and ')} configure the codec server, which is off: set FLOWHOOK_CODEC_PORT to run it`);
    return undefined;
  }
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) throw new Error(`FLOWHOOK_CODEC_PORT must be a port number (0..65535) or off, got "${rawPort}"`);
  const host = env.FLOWHOOK_CODEC_HOST || '127.0.0.1';
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
    allowedOrigins: Object.freeze(readOrigins(env.FLOWHOOK_CODEC_ALLOWED_ORIGINS ?? '')),
    sessionTtlMs: readTtl(env.FLOWHOOK_CODEC_SESSION_TTL),
    tls: engine.tls,
    oauth: readOAuth(env),
  });
}

/** Exact origins only: with credentials a wildcard would let any page decrypt with the operator's session. */
export function readOrigins(raw: string): string[] {
  const origins: string[] = [];
  for (const entry of raw.split(',').map((item) => item.trim()).filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`FLOWHOOK_CODEC_ALLOWED_ORIGINS: "${entry}" is not an origin such as http://127.0.0.1:8233`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '') || entry.includes('*')) {
      throw new Error(`FLOWHOOK_CODEC_ALLOWED_ORIGINS: "${entry}" must be exactly scheme://host[:port] (no path, no wildcard), e.g. http://127.0.0.1:8233`);
    }
    origins.push(url.origin);
  }
  return origins;
}

function readTtl(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_SESSION_TTL_MS;
  const ms = parseDuration(raw);
  if (typeof ms === 'string' || ms < 60_000 || ms > MAX_SESSION_TTL_MS) throw new Error(`FLOWHOOK_CODEC_SESSION_TTL must be a duration from 1m to 24h such as 1h or 30m, got "${raw}"`);
  return ms;
}

function readOAuth(env: Env): CodecOAuthSettings | undefined {
  const issuer = env.FLOWHOOK_CODEC_OAUTH_ISSUER;
  const others = ['FLOWHOOK_CODEC_OAUTH_AUDIENCE', 'FLOWHOOK_CODEC_OAUTH_GROUP', 'FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM', 'FLOWHOOK_CODEC_OAUTH_JWKS_URI'].filter((name) => env[name]);
  if (!issuer) {
    if (others.length > 0) throw new Error(`${others.join(', ')} need FLOWHOOK_CODEC_OAUTH_ISSUER (the issuer of operators' access tokens)`);
    return undefined;
  }
  const audiences = (env.FLOWHOOK_CODEC_OAUTH_AUDIENCE ?? '').split(',').map((item) => item.trim()).filter(Boolean);
  if (audiences.length === 0) throw new Error('FLOWHOOK_CODEC_OAUTH_AUDIENCE is required with FLOWHOOK_CODEC_OAUTH_ISSUER: the aud value(s) of operators\' access tokens');
  const group = env.FLOWHOOK_CODEC_OAUTH_GROUP?.trim();
  if (!group) throw new Error('FLOWHOOK_CODEC_OAUTH_GROUP is required with FLOWHOOK_CODEC_OAUTH_ISSUER: only members of this operator group (or role) may decode');
  const groupClaim = env.FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM?.trim() || 'groups';
  const jwksUri = env.FLOWHOOK_CODEC_OAUTH_JWKS_URI || undefined;
  checkIssuerUrl('FLOWHOOK_CODEC_OAUTH_ISSUER', issuer);
  if (jwksUri) checkIssuerUrl('FLOWHOOK_CODEC_OAUTH_JWKS_URI', jwksUri);
  return Object.freeze({ issuer, jwksUri, audiences, group, groupClaim });
}

/** Signing keys fetched over clear text could be swapped by anyone on the path. */
function checkIssuerUrl(name: string, raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an https URL, got "${raw}"`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return;
  throw new Error(`${name} must be an https URL (http only on loopback), got "${raw}"`);
}
