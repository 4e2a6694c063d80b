import test from 'ava';
import { readAuditRetention } from '../../engine/audit/audit-retention.ts';
import { readEngineConfig } from '../../engine/config.ts';

test('audit rows are kept for good unless a retention of at least a day is given', (t) => {
  t.is(readAuditRetention({}), undefined);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '' }), undefined);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: 'off' }), undefined);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '1d' }), 86_400_000);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '400d' }), 400 * 86_400_000);
  t.throws(() => readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '30m' }), { message: /^FLOWHOOK_AUDIT_RETENTION must be a duration of at least 1d .*or off to keep every row.*got "30m"$/ });
  t.throws(() => readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: 'never' }), { message: /FLOWHOOK_AUDIT_RETENTION/ });
  const base = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' };
  t.is(readEngineConfig(base).auditRetentionMs, undefined);
  t.is(readEngineConfig({ ...base, FLOWHOOK_AUDIT_RETENTION: '90d' }).auditRetentionMs, 90 * 86_400_000);
});
