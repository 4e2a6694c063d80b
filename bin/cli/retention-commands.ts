// `flowhook retention show|purge`: how long each kind of data is kept, where that is enforced and
// what the last scheduled purge deleted; and erasure requests — everything of one company or one
// caller deleted now (`--dry-run` counts first; nothing goes without `--yes`). Through the
// engine's RetentionAdminService with the admin token; a purge, its dry run too, is audited.
import { createClient, type Client } from '@connectrpc/connect';
import type { Command } from 'commander';
import {
  PurgeSubjectResponseSchema,
  RetentionAdminService,
  GetRetentionResponseSchema,
  type PurgedRows,
  type PurgeSubjectRequest,
} from '../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import { commandRuntime, UsageError, type CommandContext, type CommandWiring } from './admin-action.ts';
import { requireYes, rpcCommand } from './admin-command.ts';
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { card, table, timeText } from './output.ts';

export type RetentionClient = Client<typeof RetentionAdminService>;

export type RetentionCommandDeps = CommandWiring<RetentionClient>;

/** An erasure walks a whole company's executions in Temporal: longer than the CLI's usual minute. */
const PURGE_TIMEOUT_MS = 15 * 60_000;

type PurgeOptions = { company?: string; caller?: string; dryRun?: boolean; yes?: boolean };

export function registerRetentionCommands(program: Command, deps: RetentionCommandDeps = {}): void {
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const runtime = commandRuntime(deps, () =>
    createClient(RetentionAdminService, createAdminTransport(adminOptionsFromEnvironment())),
  );
  const retention = program
    .command('retention')
    .description('how long flowhook keeps each kind of data, and erasure of one company or caller on request');
  rpcCommand(runtime, retention.command('show'), {
    description: 'each kind of data: its setting, retention, who enforces it, the last purge and the oldest row',
    response: GetRetentionResponseSchema,
    call: (context) => context.client().getRetention({}),
    lines: (response) => {
      const schedule = response.schedule;
      return [
        ...table(
          ['KIND', 'RETENTION', 'SETTING', 'ENFORCED BY', 'LAST PURGED', 'OLDEST'],
          response.kinds.map((kind) => [
            kind.kind,
            kind.retention,
            kind.setting || '-',
            kind.enforcedBy,
            kind.enforcedBy.startsWith('schedule') ? String(kind.lastPurged) : '-',
            timeText(kind.oldest) || '-',
          ]),
        ),
        '',
        `Schedule ${schedule?.scheduleId ?? ''}:`,
        ...(schedule?.problem
          ? [`  not described: ${schedule.problem}`]
          : card([
              ['every', schedule?.interval],
              ['paused', schedule?.paused ? 'yes' : undefined],
              ['last purge', timeText(schedule?.lastRun) || 'none yet'],
              ['next run', timeText(schedule?.nextRun) || undefined],
            ])),
        `Executions and coordinators: the retention of Temporal namespace ${response.namespace}.`,
        ...response.kinds.filter((kind) => kind.note !== '').map((kind) => `  ${kind.kind}: ${kind.note}`),
      ];
    },
  });
  rpcCommand(runtime, retention.command('purge'), {
    description:
      "erasure: delete one company's or one caller's executions, deliveries, callback and idempotency rows now (audited)",
    options: (command) =>
      command
        .option('--company <name>', 'everything of this company')
        .option('--caller <caller>', 'everything of this caller: user:<name>, app:<clientId> or account:<name>')
        .option('--dry-run', 'count what would be deleted; delete nothing')
        .option('--yes', 'delete: there is no undo'),
    response: PurgeSubjectResponseSchema,
    call: async (context) => {
      const request = purgeRequest(context);
      if (request.dryRun) return context.client().purgeSubject(request);
      await requireYes(context, async () => {
        const counted = await context.client().purgeSubject({ ...request, dryRun: true });
        return `not purged: ${subjectText(request)} has ${countsText(counted.purged)} to delete. Confirm with --yes (there is no undo)`;
      });
      return context.client().purgeSubject(request, { timeoutMs: PURGE_TIMEOUT_MS });
    },
    lines: (response, context) => [
      `${response.dryRun ? 'Would delete' : 'Deleted'} for ${subjectText(purgeRequest(context))}:`,
      ...card(response.purged.map((rows) => [rows.kind, String(rows.rows)])),
      'Kept:',
      ...response.kept.map((kept) => `  ${kept}`),
    ],
  });
}

function purgeRequest(context: CommandContext<unknown>): Pick<PurgeSubjectRequest, 'company' | 'caller' | 'dryRun'> {
  const options = context.options as PurgeOptions;
  if ((options.company === undefined) === (options.caller === undefined))
    throw new UsageError('name one subject: --company <name> or --caller <caller>');
  if (options.dryRun && options.yes) throw new UsageError('--dry-run deletes nothing: leave out --yes, or --dry-run');
  return { company: options.company ?? '', caller: options.caller ?? '', dryRun: options.dryRun === true };
}

function subjectText(request: { company: string; caller: string }): string {
  return request.company !== '' ? `company ${request.company}` : `caller ${request.caller}`;
}

function countsText(purged: readonly PurgedRows[]): string {
  return purged.map((rows) => `${rows.rows} ${rows.kind}`).join(', ');
}
