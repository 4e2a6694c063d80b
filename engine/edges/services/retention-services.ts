// The retention services: HousekeepingService.PurgeExpired, which the retention workflow's
// activity calls with the worker's records-scope account (one bounded round of the purge,
// engine/domain/retention/expired-rows-purge.ts, counted in the engine's metrics), and the admin
// RetentionAdminService: what is kept for how long, and erasure requests (audited:
// engine/domain/audit/audited-methods.ts).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import {
  PurgedRowsSchema,
  RetentionKindSchema,
  RetentionScheduleSchema,
  type HousekeepingService,
  type RetentionAdminService,
} from '../../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { formatDuration } from '../../../common/duration.ts';
import { purgeExpiredRows } from '../../domain/retention/expired-rows-purge.ts';
import { retentionReport } from '../../domain/retention/retention-report.ts';
import type { RetentionSettings } from '../../domain/retention/retention-settings.ts';
import { ERASED_KINDS, eraseSubject, erasureSubject, KEPT_BY_ERASURE } from '../../domain/retention/subject-erasure.ts';
import type { EngineMetrics } from '../../domain/metrics/engine-metrics.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import { PermissionDeniedError } from '../../errors.ts';

export interface RetentionServiceDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  retention: RetentionSettings;
  metrics?: EngineMetrics;
}

const rowsOf = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts).map(([kind, rows]) => create(PurgedRowsSchema, { kind, rows: BigInt(rows) }));

export function createHousekeepingService(deps: RetentionServiceDeps): ServiceImpl<typeof HousekeepingService> {
  return {
    async purgeExpired(request, context) {
      // The deployment's purge is the worker's (or an all-companies account's), not a company's: a records
      // account bound to companies reaches their records only, and this round touches every company's rows.
      const account = serviceAccountOf(context);
      if (account.companyIds.length > 0)
        throw new PermissionDeniedError(
          `PurgeExpired runs the deployment's retention purge: service account "${account.name}" is bound to companies`,
        );
      const round = await purgeExpiredRows(
        { orm: deps.orm, temporal: deps.temporal, retentions: deps.retention.rows },
        request.callbackCursor,
      );
      deps.metrics?.retention.purged(round.purged);
      const deleted = Object.values(round.purged).reduce((sum, rows) => sum + rows, 0);
      if (deleted > 0)
        deps.logger.info({ purged: round.purged, more: round.more }, 'deleted rows past their retention');
      return { purged: rowsOf(round.purged), more: round.more, nextCallbackCursor: round.nextCallbackCursor };
    },
  };
}

export function createRetentionAdminService(deps: RetentionServiceDeps): ServiceImpl<typeof RetentionAdminService> {
  const namespace = deps.temporal.options.namespace;
  return {
    async getRetention() {
      const report = await retentionReport({ ...deps, namespace, retention: deps.retention });
      const { schedule } = report;
      return {
        namespace,
        kinds: report.kinds.map((kind) =>
          create(RetentionKindSchema, {
            kind: kind.kind,
            description: kind.description,
            setting: kind.setting,
            retention: kind.retention,
            enforcedBy: kind.enforcedBy,
            oldest: kind.oldest && timestampFromDate(kind.oldest),
            lastPurged: BigInt(kind.lastPurged),
            note: kind.note,
          }),
        ),
        schedule: create(RetentionScheduleSchema, {
          scheduleId: schedule.scheduleId,
          interval: schedule.intervalMs === undefined ? '' : formatDuration(schedule.intervalMs),
          lastRun: schedule.last && timestampFromDate(new Date(schedule.last.finishedAt)),
          nextRun: schedule.nextRun && timestampFromDate(schedule.nextRun),
          paused: schedule.paused,
          problem: schedule.problem ?? '',
        }),
      };
    },
    async purgeSubject(request) {
      const subject = erasureSubject(request);
      const counts = await eraseSubject(
        { orm: deps.orm, temporal: deps.temporal, namespace, taskQueue: deps.taskQueue },
        subject,
        request.dryRun,
      );
      if (!request.dryRun) deps.logger.info({ erased: counts }, 'erasure request carried out');
      return {
        purged: rowsOf(Object.fromEntries(ERASED_KINDS.map((kind) => [kind, counts[kind]]))),
        dryRun: request.dryRun,
        kept: [...KEPT_BY_ERASURE],
      };
    },
  };
}
