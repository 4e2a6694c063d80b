// FLOWHOOK_AUDIT_RETENTION: how long audit_event rows are kept. Unset (or `off`) keeps them for
// good, as an audit log is kept unless a policy says otherwise; a duration of at least a day lets
// every engine delete older rows (audit-purge.ts). The floor keeps a unit slip (`30m` meant as
// months) from erasing the log within the hour.
import { readRetention } from '../housekeeping/retention-setting.ts';

export const AUDIT_RETENTION_SETTING = 'FLOWHOOK_AUDIT_RETENTION';
export const MIN_AUDIT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Undefined: keep every row. */
export function readAuditRetention(env: Record<string, string | undefined>): number | undefined {
  const raw = env[AUDIT_RETENTION_SETTING];
  if (raw === undefined || raw === '' || raw === 'off') return undefined;
  return readRetention(env, { name: AUDIT_RETENTION_SETTING, defaultMs: 0, minMs: MIN_AUDIT_RETENTION_MS, why: 'or off to keep every row; the floor guards the log against a unit slip' });
}
