// A worker may read and write records (and resolve connections) only for the
// company of an execution the engine started. At start, the engine mints a
// grant — an HMAC over execution id and company under a key only engines hold —
// and hands it to the execution in its input; the worker passes it back with
// every RecordService/OutboundService call. A records token alone, or a
// workflow input forged for another company, is refused.
import { hmacMatches, hmacOf } from './deployment-keys.ts';

const VERSION = 'g1';

export function mintExecutionGrant(key: Buffer, executionId: string, company: string): string {
  return `${VERSION}.${hmacOf(key, [VERSION, executionId, company])}`;
}

export function executionGrantMatches(key: Buffer, executionId: string, company: string, grant: string): boolean {
  const [version, mac] = grant.split('.', 2);
  if (version !== VERSION || !mac) return false;
  return hmacMatches(key, [VERSION, executionId, company], mac);
}
