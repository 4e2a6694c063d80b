// Who may see what a doNotLogPayload execution withholds — its payload, step
// outputs and the body of its caller's answer — and the audit log's record of
// each time someone does. RevealExecutionPayload shows it (the audit
// interceptor records that call as `execution.reveal-payload`). A re-run on
// another flow version than the execution's own hands the payload to that
// version's steps, and an httpRequest step can send Trigger.PayloadJson to any
// host the egress list allows: so it is a reveal as well, needs the same role
// and is recorded under the same action.
//
// The role is admin of the execution's company (company-reach.ts): on the
// console's listener the person's role there — an editor publishes versions,
// so an editor must not be the one who feeds them withheld payloads; on the
// engine's own port an admin-scope account, admin in every company.
import type { HandlerContext } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AUDIT_PERSON, serviceAccountOf } from '../callers/call-context.ts';
import { recordAuditEvent } from '../audit/audit-log.ts';
import { UnavailableError } from '../../errors.ts';
import { companyReach } from '../callers/company-reach.ts';

/** RevealExecutionPayload's audit action (audit/audited-methods.ts): every reveal is filed under it. */
export const REVEAL_ACTION = 'execution.reveal-payload';

export interface PayloadReveals {
  /** Whether the caller may see what doNotLogPayload withholds in `company`. */
  mayReveal(company: string): boolean;
  /**
   * Records a reveal that is not a RevealExecutionPayload call, before it happens: a reveal that
   * cannot be recorded does not happen (UNAVAILABLE), unlike a change, which is already made when
   * the interceptor writes its row.
   */
  record(reveal: { company: string; executionId: string; details: Record<string, unknown> }): Promise<void>;
}

export function payloadReveals(orm: MikroORM, context: HandlerContext): PayloadReveals {
  return {
    mayReveal: companyReach(context, 'admin'),
    async record(reveal) {
      try {
        await recordAuditEvent(orm, {
          action: REVEAL_ACTION,
          company: reveal.company,
          target: reveal.executionId,
          details: reveal.details,
          at: new Date(),
          account: serviceAccountOf(context).name,
          person: context.values.get(AUDIT_PERSON),
          method: `${context.service.typeName}/${context.method.name}`,
          outcome: 'ok',
        });
      } catch {
        throw new UnavailableError(
          'the audit log cannot record this reveal right now, so nothing was started; try again',
        );
      }
    },
  };
}
