import { defineEntity, p } from '@mikro-orm/core';

/**
 * One signed-in browser of the console (engine/console/console-sessions.ts).
 * In PostgreSQL, not in one engine's memory, so any engine behind a load
 * balancer serves it and a sign-out holds everywhere. Keyed by the SHA-256 of
 * the cookie value: the table holds no usable cookie. A session opened with an
 * admin token keeps the token's SHA-256 (never the token) and is checked
 * against the service account directory on every call.
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
    /** Admin-token sessions: the SHA-256 the directory knows the token by; a rotated token's finds nothing. */
    tokenHash: p.string().length(64).nullable(),
    /** Company name (`*`: every company) → viewer, editor or admin. */
    roles: p.json<Record<string, string>>(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});

export class ConsoleSession extends ConsoleSessionSchema.class {}
ConsoleSessionSchema.setClass(ConsoleSession);
