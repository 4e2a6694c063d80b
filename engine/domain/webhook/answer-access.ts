// Who may fetch an execution's answer (WebhookService.GetAnswer), and what an
// execution id looks like. Pure, so the rules are tested without a stack.
// Everything a caller may not see is NOT_FOUND, never PERMISSION_DENIED: a
// refusal that differs from "unknown" would confirm the execution exists.
import type { CallerIdentity } from '../callers/caller-authentication.ts';
import { FLOW_ALL, missingPermissionSet, SUPER } from '../callers/permissions.ts';

/** The longest wait a fetch may ask for: a long-poll holds a sync slot for that long. */
export const MAX_ANSWER_WAIT_SECONDS = 60;

// `<activity>:<uuid>` (execution-start-options.ts), `<activity>:key-<40 hex>` (idempotency.ts) or
// `<activity>:rerun-<uuid>` (executions/rerun-execution.ts: a re-run keeps the original's caller);
// an activity is at most 200 characters without control characters (flow-validation.ts).
const EXECUTION_ID =
  // eslint-disable-next-line no-control-regex -- an activity has no control characters: the pattern excludes them on purpose
  /^[^\u0000-\u001f\u007f]{1,200}:(?:(?:rerun-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|key-[0-9a-f]{40})$/;

export function isExecutionId(text: string): boolean {
  return EXECUTION_ID.test(text);
}

/**
 * Whether `caller` may read the answer of an execution of company `companyId`
 * that recorded `recordedCaller`: the same caller while it may still run
 * flows there, or a caller that may run flows there and holds FLOW ALL or
 * SUPER for it (the sets that see all of a company's flows). An application
 * needs FLOW INTEGR. for the runtime data in either case (FLOW ALL does not reach it); a
 * service account (its companies checked by the caller of this) sees its own
 * executions only.
 */
export function mayReadAnswer(caller: CallerIdentity, companyId: string, recordedCaller: string): boolean {
  if (caller.kind === 'service-account') return caller.label === recordedCaller;
  if (missingPermissionSet(caller, companyId) !== undefined) return false;
  if (caller.label === recordedCaller) return true;
  return caller.grants.some(
    (grant) =>
      (grant.companyId === null || grant.companyId === companyId) &&
      (grant.permissionSet === FLOW_ALL || grant.permissionSet === SUPER),
  );
}
