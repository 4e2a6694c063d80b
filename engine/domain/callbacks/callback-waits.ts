// The callback_wait table's few operations (storage/callback-wait.entity.ts).
// Every caller passes a fresh EntityManager fork: rows are read as they are
// now, never from an identity map that saw them before an update.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, FailedPreconditionError } from '../../errors.ts';
import { CallbackWait } from '../../infrastructure/storage/entities.ts';

export interface WaitTarget {
  executionId: string;
  step: string;
}

export interface NewWait extends WaitTarget {
  lookup: string;
  company: string;
  activity: string;
  sensitive: boolean;
}

export function findWait(em: EntityManager, lookup: string): Promise<CallbackWait | null> {
  return em.findOne(CallbackWait, { lookup });
}

/** URL rows: a fresh token each, so there is never a conflict (and a collision of 256 random bits would be an error). */
export async function insertUrlWaits(em: EntityManager, waits: readonly NewWait[], now: Date): Promise<void> {
  if (waits.length === 0) return;
  await em.insertMany(
    CallbackWait,
    waits.map((wait) => ({
      ...wait,
      createdAt: now,
      expiresAt: null,
      usedAt: null,
      answerStatus: null,
      bodyDigest: null,
    })),
  );
}

/** The step accepted a callback: every way into it (all its URLs, its key) answers from now on with this status, for this body only. */
export async function markUsed(
  em: EntityManager,
  target: WaitTarget,
  answer: { status: number; bodyDigest: string },
  now: Date,
): Promise<void> {
  await em.nativeUpdate(
    CallbackWait,
    { executionId: target.executionId, step: target.step, usedAt: null },
    { usedAt: now, answerStatus: answer.status, bodyDigest: answer.bodyDigest },
  );
}

/** The execution said the step can never take a callback (timed out, unknown, ended): its unused rows lead nowhere. */
export async function forgetWaits(em: EntityManager, target: WaitTarget): Promise<void> {
  await em.nativeDelete(CallbackWait, { executionId: target.executionId, step: target.step, usedAt: null });
}

export function anotherExecutionWaits(company: string, activity: string): FailedPreconditionError {
  return new FailedPreconditionError(`another execution still waits for this key in ${company}/${activity}`);
}

// Rewritten only when the row is not this (execution, step)'s and no other execution still
// waits on it: a step of the same execution, or a row already used or expired.
const UPSERT_KEY = `insert into "callback_wait" ("lookup", "company", "activity", "execution_id", "step", "sensitive", "created_at", "expires_at", "used_at", "answer_status", "body_digest")
  values (?, ?, ?, ?, ?, ?, ?, ?, null, null, null)
  on conflict ("lookup") do update set "company" = excluded."company", "activity" = excluded."activity", "execution_id" = excluded."execution_id", "step" = excluded."step",
    "sensitive" = excluded."sensitive", "created_at" = excluded."created_at", "expires_at" = excluded."expires_at", "used_at" = null, "answer_status" = null, "body_digest" = null
  where not ("callback_wait"."execution_id" = excluded."execution_id" and "callback_wait"."step" = excluded."step")
    and ("callback_wait"."execution_id" = excluded."execution_id" or "callback_wait"."used_at" is not null or "callback_wait"."expires_at" is null or "callback_wait"."expires_at" <= ?)
  returning "expires_at"`;

/**
 * Makes the key lead to this (execution, step) until `expiresAt`, unless another execution still
 * waits for it. Registering the same (execution, step) again (an activity retry) changes nothing
 * and is answered with the expiry it got the first time. One statement decides, so two executions
 * registering the same key at once cannot both win. A row of an execution that has closed while
 * its wait was open (terminated, cancelled, failed) is not a wait: `stillRuns` asks Temporal, and
 * that execution's unused rows are forgotten so the key is free again before its old expiry.
 */
export async function registerKeyWait(
  em: EntityManager,
  wait: NewWait,
  now: Date,
  expiresAt: Date,
  stillRuns: (executionId: string) => Promise<boolean>,
): Promise<Date> {
  const connection = em.getConnection();
  // A row that changed between the statement and the read is decided again; so is a key freed from a closed execution.
  for (let attempt = 0; attempt < 3; attempt++) {
    const written = await connection.execute<{ expires_at: Date }[]>(UPSERT_KEY, [
      wait.lookup,
      wait.company,
      wait.activity,
      wait.executionId,
      wait.step,
      wait.sensitive,
      now,
      expiresAt,
      now,
    ]);
    if (written[0]) return new Date(written[0].expires_at);
    const existing = await em.fork().findOne(CallbackWait, { lookup: wait.lookup });
    if (!existing) continue;
    if (existing.executionId === wait.executionId && existing.step === wait.step)
      return existing.expiresAt ?? expiresAt;
    const stillWaits = existing.usedAt == null && existing.expiresAt != null && existing.expiresAt > now;
    if (!stillWaits) continue;
    if (await stillRuns(existing.executionId)) throw anotherExecutionWaits(wait.company, wait.activity);
    await forgetExecutionWaits(em.fork(), existing.executionId);
  }
  throw new ConflictError('the key changed hands while it was being registered; try again');
}

/** The execution has closed: none of its unused rows leads anywhere. Used rows stay (they answer retried deliveries). Resolves to the rows deleted. */
export async function forgetExecutionWaits(em: EntityManager, executionId: string): Promise<number> {
  return em.nativeDelete(CallbackWait, { executionId, usedAt: null });
}
