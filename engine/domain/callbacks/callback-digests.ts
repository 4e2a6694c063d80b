// The digests callback_wait stores instead of what callers send: the lookup of
// a callback URL (a plain SHA-256 suffices: the token is 256 random bits), the
// lookup of a correlation key (an HMAC under the deployment key 'callback-key':
// keys are guessable values such as order numbers, so a plain hash would let a
// reader of the table confirm one) and the digest of an accepted body (an HMAC
// under 'callback-body', bound to its execution and step, so equal bodies of
// different executions do not look equal — it also names the update in the
// execution's clear history).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The deployment keys of callbacks (security/deployment-keys.ts), loaded once per engine. */
export interface CallbackKeys {
  /** Keys correlation-key lookups ('callback-key'). */
  lookup: Buffer;
  /** Keys body digests ('callback-body'). */
  body: Buffer;
}

export function tokenLookup(token: string): string {
  return `t:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** Company exactly, activity lower-cased, the key as given: NUL-separated, so parts cannot run into each other. */
export function keyLookup(key: Buffer, parts: { company: string; activity: string; key: string }): string {
  const mac = createHmac('sha256', key)
    .update(`${parts.company}\u0000${parts.activity.toLowerCase()}\u0000${parts.key}`, 'utf8')
    .digest('hex');
  return `k:${mac}`;
}

export function bodyDigest(key: Buffer, where: { executionId: string; step: string }, body: string): string {
  return createHmac('sha256', key)
    .update(`${where.executionId}\u0000${where.step}\u0000`, 'utf8')
    .update(body, 'utf8')
    .digest('hex');
}

export function sameDigest(stored: string | null | undefined, computed: string): boolean {
  if (!stored || stored.length !== computed.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'utf8'), Buffer.from(computed, 'utf8'));
}
