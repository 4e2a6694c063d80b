// `flowhook audit list`: the audit log of admin actions (who changed what,
// when, with which outcome), read through the engine's AuditService with the
// admin token. The log holds no secrets, so nothing here needs hiding.
import { toJson } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { InvalidArgumentError, type Command } from 'commander';
import { ListAuditEventsResponseSchema } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { parseDuration } from '../../common/duration.ts';
import { exitCodeFor, reportError } from './admin-action.ts';
import { auditClientFromEnvironment, type AuditClient } from './admin-client.ts';
import { printJson, printLines, processIo, table, type CliIo } from './output.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export interface AuditCommandDeps {
  /** Default: built from the environment on the first call. */
  client?: () => AuditClient;
  io?: CliIo;
  setExitCode?: (code: number) => void;
  /** For `--since 24h`; default: the clock. */
  now?: () => Date;
}

export function registerAuditCommands(program: Command, deps: AuditCommandDeps = {}): void {
  const io = deps.io ?? processIo;
  const setExitCode = deps.setExitCode ?? ((code: number) => void (process.exitCode = code));
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const client = deps.client ?? auditClientFromEnvironment;
  const now = deps.now ?? (() => new Date());
  const time = (raw: string) => timeOption(raw, now());
  program
    .command('audit')
    .description('the audit log of admin actions: who changed what, when, from which service account (and in the console, which person) — never a secret')
    .command('list')
    .description('audit events, newest first')
    .option('--since <time>', 'events at or after this time: ISO 8601 (2026-11-23T18:00:00Z) or a duration ago (24h, 7d)', time)
    .option('--until <time>', 'events before this time: ISO 8601 or a duration ago', time)
    .option('--account <name>', 'only calls by this service account (bootstrap-admin: FLOWHOOK_ADMIN_TOKEN)')
    .option('--company <name>', 'only actions about this company')
    .option('--action <action>', 'only this action (flow.publish) or kind of action (flow: every flow.* action)')
    .option('--limit <n>', 'at most this many (1..1000, default 100)', positiveInt)
    .option('--json', 'print the response as JSON')
    .action(async (options: Record<string, unknown>) => {
      const json = options.json === true;
      try {
        const response = await client().listAuditEvents({
          since: options.since as Timestamp | undefined,
          until: options.until as Timestamp | undefined,
          account: text(options.account),
          company: text(options.company),
          action: text(options.action),
          limit: typeof options.limit === 'number' ? options.limit : 0,
        });
        if (json) return printJson(io, toJson(ListAuditEventsResponseSchema, response, JSON_OPTIONS));
        if (response.events.length === 0) return printLines(io, ['No audit events match.']);
        const rows = response.events.map((e) => [
          e.at ? timestampDate(e.at).toISOString() : '',
          e.person && e.person !== e.account ? `${e.account} (${e.person})` : e.account,
          e.action,
          e.company || '-',
          e.target || '-',
          e.outcome,
          e.detailsJson === '{}' ? '' : e.detailsJson,
        ]);
        printLines(io, table(['TIME', 'ACCOUNT', 'ACTION', 'COMPANY', 'TARGET', 'OUTCOME', 'DETAILS'], rows));
      } catch (error) {
        reportError(io, json, error);
        setExitCode(exitCodeFor(error));
      }
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
  if (typeof ms === 'string') throw new InvalidArgumentError('an ISO 8601 date, a time with its zone (2026-11-23T18:00:00Z), or a duration ago (24h)');
  return timestampFromDate(new Date(now.getTime() - ms));
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function positiveInt(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('a positive integer');
  return value;
}
