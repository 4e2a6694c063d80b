import test from 'ava';
import { readEngineConfig } from '../../engine/config.ts';

const base = { FLOWHOOK_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' };
const readAuditRetention = (env: Record<string, string>) => readEngineConfig({ ...base, ...env }).auditRetentionMs;

test('audit rows are kept for good unless a retention of at least a day is given', (t) => {
  t.is(readAuditRetention({}), undefined);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '' }), undefined);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: 'off' }), undefined);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '1d' }), 86_400_000);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '90d' }), 90 * 86_400_000);
  t.is(readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '400d' }), 400 * 86_400_000);
  t.throws(() => readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: '30m' }), {
    message: /^FLOWHOOK_AUDIT_RETENTION must be off or a duration of at least 1d .*unit slip.*got "30m"$/,
  });
  t.throws(() => readAuditRetention({ FLOWHOOK_AUDIT_RETENTION: 'never' }), { message: /FLOWHOOK_AUDIT_RETENTION/ });
});
