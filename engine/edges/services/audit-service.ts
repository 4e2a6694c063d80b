// AuditService: an adapter between the RPC messages and the audit table
// (audit-log.ts). Behind the gate with the admin scope, like every service the
// gate's scope table does not name.
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AuditEventSchema, type AuditService } from '../../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { InvalidArgumentError } from '../../errors.ts';
import { listAuditEvents } from '../../domain/audit/audit-log.ts';

export interface AuditServiceDeps {
  orm: MikroORM;
}

export function createAuditService(deps: AuditServiceDeps): ServiceImpl<typeof AuditService> {
  return {
    async listAuditEvents(request) {
      const { events, more } = await listAuditEvents(deps.orm, {
        since: request.since ? timestampDate(request.since) : undefined,
        until: request.until ? timestampDate(request.until) : undefined,
        account: request.account,
        company: request.company,
        action: request.action,
        person: request.person,
        beforeId: request.pageToken ? idOfPageToken(request.pageToken) : undefined,
        limit: request.limit,
      });
      return {
        events: events.map((event) =>
          create(AuditEventSchema, {
            id: String(event.id),
            at: timestampFromDate(event.at),
            account: event.account,
            action: event.action,
            method: event.method,
            company: event.company ?? '',
            target: event.target ?? '',
            outcome: event.outcome,
            detailsJson: JSON.stringify(event.details),
            person: event.person ?? '',
          }),
        ),
        // The last id shown: the next page lists the events below it (ids only grow, so a page never repeats or skips one).
        nextPageToken: more ? String(events.at(-1)!.id) : '',
      };
    },
  };
}

/** A page token is the id of the last event of the page before: a positive integer, never SQL. */
function idOfPageToken(token: string): string {
  if (!/^[1-9][0-9]{0,18}$/.test(token))
    throw new InvalidArgumentError('page_token: not a page token this listing gave');
  return token;
}
