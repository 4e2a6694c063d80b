// A worker may read and write records (and resolve connections) only for the
// company of an execution the engine started, and only while it runs. At start,
// the engine mints a grant — an HMAC over execution id, company and a random
// run mark, under a key only engines hold — and hands it to the execution in
// its input; the run mark also goes into the execution's memo. The worker
// passes the grant back with every RecordService/OutboundService/CallbackService
// call, and the engine asks Temporal whether the execution with that id still
// runs *with that mark* (security/execution-liveness.ts). So a grant is
// worthless once its execution closed — also when a keyed execution id is
// started again after Temporal's retention forgot the first run: the new run
// has another mark. A Temporal reset keeps the memo, and the grant with it.
//
// g1 grants (before run marks) carry none; they still work while an
// execution started before the upgrade runs, and never for a run that has a
// mark (security/execution-liveness.ts).
import { randomBytes } from 'node:crypto';
import { hmacMatches, hmacOf } from '../callers/deployment-keys.ts';

/** The memo key of an execution's run mark. */
export const RUN_MARK_MEMO = 'grantRun';

const LEGACY = 'g1';
const CURRENT = 'g2';
const RUN_MARK = /^[A-Za-z0-9_-]{22}$/;

export interface MintedGrant {
  grant: string;
  /** Goes into the execution's memo (RUN_MARK_MEMO): it tells this run from a later one with the same id. */
  runMark: string;
}

export function mintExecutionGrant(key: Buffer, executionId: string, company: string): MintedGrant {
  const runMark = randomBytes(16).toString('base64url');
  return { grant: `${CURRENT}.${runMark}.${hmacOf(key, [CURRENT, executionId, company, runMark])}`, runMark };
}

/** What a grant that matches says: the run mark it was minted with (none for g1). */
export interface ReadGrant {
  runMark: string | undefined;
}

/** The grant's claim when the engine minted it for this execution and company; undefined otherwise. */
export function readExecutionGrant(
  key: Buffer,
  executionId: string,
  company: string,
  grant: string,
): ReadGrant | undefined {
  const parts = grant.split('.');
  if (parts.length === 2 && parts[0] === LEGACY && parts[1]) {
    return hmacMatches(key, [LEGACY, executionId, company], parts[1]) ? { runMark: undefined } : undefined;
  }
  if (parts.length === 3 && parts[0] === CURRENT && RUN_MARK.test(parts[1]!) && parts[2]) {
    return hmacMatches(key, [CURRENT, executionId, company, parts[1]!], parts[2]) ? { runMark: parts[1] } : undefined;
  }
  return undefined;
}
