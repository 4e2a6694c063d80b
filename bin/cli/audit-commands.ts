// `flowhook audit list`: the audit log of admin actions (who changed what,
// when, with which outcome), read through the engine's AuditService with the
// admin token. The log holds no secrets, so nothing here needs hiding.
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { InvalidArgumentError, type Command } from 'commander';
import { ListAuditEventsResponseSchema } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { parseDuration } from '../../common/duration.ts';
import { commandRuntime, type CommandWiring } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { auditClientFromEnvironment, type AuditClient } from './admin-client.ts';
import { positiveInt } from './option-values.ts';
import { tableOr, timeText } from './output.ts';

export interface AuditCommandDeps extends CommandWiring<AuditClient> {
  /** For `--since 24h`; default: the clock. */
  now?: () => Date;
}

/** `audit list`'s options (commander's opts()). */
type ListOptions = {
  since?: Timestamp;
  until?: Timestamp;
  account?: string;
  company?: string;
  action?: string;
  person?: string;
  limit?: number;
};

export function registerAuditCommands(program: Command, deps: AuditCommandDeps = {}): void {
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const runtime = commandRuntime(deps, auditClientFromEnvironment);
  const now = deps.now ?? (() => new Date());
  const time = (raw: string) => timeOption(raw, now());
  const list = program
    .command('audit')
    .description(
      'the audit log of admin actions: who changed what, when, from which service account (and in the console, which person) — never a secret',
    )
    .command('list');
  rpcCommand(runtime, list, {
    description: 'audit events, newest first',
    options: (command) =>
      command
        .option(
          '--since <time>',
          'events at or after this time: ISO 8601 (2026-11-23T18:00:00Z) or a duration ago (24h, 7d)',
          time,
        )
        .option('--until <time>', 'events before this time: ISO 8601 or a duration ago', time)
        .option('--account <name>', 'only calls by this service account (bootstrap-admin: FLOWHOOK_ADMIN_TOKEN)')
        .option('--person <name>', 'only changes this person made in the console')
        .option('--company <name>', 'only actions about this company')
        .option('--action <action>', 'only this action (flow.publish) or kind of action (flow: every flow.* action)')
        .option('--limit <n>', 'at most this many (1..1000, default 100)', positiveInt),
    response: ListAuditEventsResponseSchema,
    call: (context) => {
      const { since, until, account, company, action, person, limit } = context.options as ListOptions;
      return context.client().listAuditEvents({
        since,
        until,
        account: account ?? '',
        company: company ?? '',
        action: action ?? '',
        person: person ?? '',
        limit: limit ?? 0,
      });
    },
    lines: ({ events }) =>
      tableOr(
        'No audit events match.',
        ['TIME', 'ACCOUNT', 'ACTION', 'COMPANY', 'TARGET', 'OUTCOME', 'DETAILS'],
        events.map((e) => [
          timeText(e.at),
          e.person && e.person !== e.account ? `${e.account} (${e.person})` : e.account,
          e.action,
          e.company || '-',
          e.target || '-',
          e.outcome,
          e.detailsJson === '{}' ? '' : e.detailsJson,
        ]),
      ),
  });
}

/** An ISO 8601 date or zoned time, or a duration before `now` (`24h`). */
export function timeOption(raw: string, now: Date): Timestamp {
  // A time without its zone would depend on the operator's clock settings.
  if (/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(raw)) {
    const date = new Date(raw);
    if (!Number.isNaN(date.getTime())) return timestampFromDate(date);
  }
  const ms = parseDuration(raw);
  if (typeof ms === 'string')
    throw new InvalidArgumentError(
      'an ISO 8601 date, a time with its zone (2026-11-23T18:00:00Z), or a duration ago (24h)',
    );
  return timestampFromDate(new Date(now.getTime() - ms));
}
