// The engines' shared HMAC keys, one per purpose, kept in PostgreSQL (the
// engine_key table) so every engine of a deployment agrees without anyone
// configuring them. The first engine that needs a key makes it; a race between
// two engines is settled by the primary key (the loser reads the winner's).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * execution-grant: RecordService/OutboundService grants; idempotency: keyed execution ids;
 * callback-key: where a waitForCallback key is looked up; callback-body: the "same body" digest of an accepted callback;
 * console-csrf: the console's CSRF tokens (console/console-csrf.ts);
 * console-session: what an admin-token console session keeps of its token (security/admin-credentials.ts).
 */
export type KeyPurpose =
  'execution-grant' | 'idempotency' | 'callback-key' | 'callback-body' | 'console-csrf' | 'console-session';

export async function loadDeploymentKey(em: EntityManager, purpose: KeyPurpose): Promise<Buffer> {
  const connection = em.getConnection();
  await connection.execute(
    `insert into "engine_key" ("purpose", "secret", "created_at") values (?, ?, now()) on conflict ("purpose") do nothing`,
    [purpose, randomBytes(32).toString('base64')],
  );
  const rows = await connection.execute<{ secret: string }[]>(`select "secret" from "engine_key" where "purpose" = ?`, [
    purpose,
  ]);
  const key = Buffer.from(rows[0]!.secret, 'base64');
  if (key.length !== 32)
    throw new Error(`engine_key "${purpose}" is not 32 bytes of base64; delete the row to have a new one made`);
  return key;
}

/** HMAC-SHA256 of the parts (newline-joined, so parts cannot run into each other), base64url. */
export function hmacOf(key: Buffer, parts: readonly string[]): string {
  return createHmac('sha256', key).update(parts.join('\n'), 'utf8').digest('base64url');
}

export function hmacMatches(key: Buffer, parts: readonly string[], supplied: string): boolean {
  const expected = Buffer.from(hmacOf(key, parts), 'utf8');
  const given = Buffer.from(supplied, 'utf8');
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, given);
}
