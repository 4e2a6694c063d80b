// An Idempotency-Key makes the execution id deterministic for (company,
// caller, activity, key), so a retried call joins the first execution instead
// of starting a second one. The key is hashed: callers choose it freely and it
// may be long or contain characters that read badly in the Temporal UI.
import { createHash } from 'node:crypto';

export function idempotentExecutionId(parts: { company: string; caller: string; activity: string; key: string }): string {
  const digest = createHash('sha256').update(JSON.stringify([parts.company, parts.caller, parts.activity, parts.key])).digest('hex');
  return `${parts.activity}:key-${digest.slice(0, 40)}`;
}
