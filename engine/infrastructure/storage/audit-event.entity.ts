import { defineEntity, p } from '@mikro-orm/core';

/**
 * One admin action (engine/edges/rpc/audit-interceptor.ts): who (the service
 * account, and in the console the person), what (action and RPC), about what (company and target), when, and
 * how it ended. Company and target are plain names, not foreign keys: the
 * record outlives what it names (a deleted company stays in its audit log),
 * and a refused call may name something that never existed. Never a secret:
 * only allowlisted request fields are copied (engine/domain/audit/audited-methods.ts).
 */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  indexes: [{ name: 'audit_event_at_index', properties: ['at'] }],
  properties: {
    /** Increasing, so newest-first is a stable order even for events in the same millisecond. */
    id: p.bigint('string').primary().autoincrement(),
    at: p.datetime(),
    account: p.string().length(200),
    action: p.string().length(100),
    method: p.string().length(200),
    company: p.string().length(200).nullable(),
    target: p.string().length(300).nullable(),
    outcome: p.string().length(40),
    details: p.json<Record<string, unknown>>(),
    /** For a change made in the console: the person signed in (the account alone says only which token or identity provider). */
    person: p.string().length(300).nullable(),
  },
});

export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);
