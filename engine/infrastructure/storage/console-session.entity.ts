import { defineEntity, p } from '@mikro-orm/core';

/**
 * One signed-in browser of the console (engine/edges/console/console-sessions.ts).
 * In PostgreSQL, not in one engine's memory, so any engine behind a load
 * balancer serves it and a sign-out holds everywhere. Keyed by the SHA-256 of
 * the cookie value: the table holds no usable cookie. A session opened with an
 * admin token keeps a keyed hash of the token (never the token, never its
 * plain SHA-256) and is checked against the service account directory on every
 * call; an OpenID Connect session keeps the provider's refresh token,
 * encrypted by the secret store's keys, to read the person's roles again.
 */
export const ConsoleSessionSchema = defineEntity({
  name: 'ConsoleSession',
  tableName: 'console_session',
  indexes: [{ name: 'console_session_expires_at_index', properties: ['expiresAt'] }],
  properties: {
    /** Hex SHA-256 of the cookie value. */
    id: p.string().length(64).primary(),
    /** Who, as the audit log names them: the identity provider's name for them, or the admin token's account. */
    person: p.string().length(300),
    /** `admin-token` or `oidc`. */
    via: p.string().length(20),
    /** The service account behind an admin-token session; `console-oidc` for people of the identity provider. */
    account: p.string().length(200),
    /**
     * Admin-token sessions: HMAC-SHA256 (base64url) of the account and the token's SHA-256 under the
     * `console-session` deployment key (engine/domain/callers/admin-credentials.ts); a rotated token's no longer matches.
     */
    tokenMac: p.string().length(64).nullable(),
    /** Company name (`*`: every company) → viewer, editor or admin. */
    roles: p.json<Record<string, string>>(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    /** When the roles were last confirmed: the sign-in, or the identity provider's last re-check. */
    checkedAt: p.datetime(),
    /** OpenID Connect: the provider's refresh token and the person's subject, sealed by the secret store (fh1.…); null when none was issued. */
    providerGrant: p.text().nullable(),
    /** An engine re-checking at the provider now (or waiting to retry) holds the session's check until then: one check at a time. */
    checkHeldUntil: p.datetime().nullable(),
  },
});

export class ConsoleSession extends ConsoleSessionSchema.class {}
ConsoleSessionSchema.setClass(ConsoleSession);
