// `flowhook execution list|show|rerun`: the execution log, read through the
// engine's ExecutionService (admin token), and re-runs (execution-rerun-command.ts). The CLI never talks to Temporal
// itself; payloads of doNotLogPayload executions are withheld by the engine.
import { toJson } from '@bufbuild/protobuf';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { createClient, type Client } from '@connectrpc/connect';
import { InvalidArgumentError, type Command } from 'commander';
import { ExecutionService, GetExecutionResponseSchema, ListExecutionsResponseSchema } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { exitCodeFor, reportError } from './admin-action.ts';
import { addRerunCommand, isoTime, terminalConfirm, type Confirm } from './execution-rerun-command.ts';
import { namesFrom, oneOf, wholeNumberIn } from './option-values.ts';

/** What `execution list` filters by (the engine's ListExecutions accepts exactly these). */
const STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELED'] as const;
const OUTCOMES = ['responded', 'sync-timeout', 'flow-ended', 'instant', 'failed'] as const;
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { card, printJson, printLines, processIo, table, type CliIo } from './output.ts';

export type ExecutionClient = Client<typeof ExecutionService>;

export interface ExecutionCommandDeps {
  /** Default: built from the environment on the first call. */
  client?: () => ExecutionClient;
  io?: CliIo;
  setExitCode?: (code: number) => void;
  /** Asks before a bulk re-run; default: the terminal, or no one (then --yes is needed). */
  confirm?: Confirm;
}

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export function registerExecutionCommands(program: Command, deps: ExecutionCommandDeps = {}): void {
  const io = deps.io ?? processIo;
  const setExitCode = deps.setExitCode ?? ((code: number) => void (process.exitCode = code));
  const client = deps.client ?? (() => createClient(ExecutionService, createAdminTransport(adminOptionsFromEnvironment())));
  const action =
    <A extends unknown[]>(handler: (json: boolean, options: Record<string, unknown>, ...positional: A) => Promise<void>) =>
    async (...args: unknown[]): Promise<void> => {
      const options = (args[args.length - 1] as Command).opts<Record<string, unknown>>();
      const json = options.json === true;
      try {
        await handler(json, options, ...(args.slice(0, -2) as A));
      } catch (error) {
        reportError(io, json, error);
        setExitCode(exitCodeFor(error));
      }
    };

  const execution = program.command('execution').description('executions of published flows and their execution log');
  execution
    .command('list')
    .description('recent executions, most recent first')
    .option('--company <name>', 'only this company')
    .option('--activity <activity>', 'only this webhook activity')
    .option('--flow <name>', 'only this flow')
    .option('--flow-version <n>', 'only this version of the flow', positiveInt)
    .option('--outcome <outcome>', `only executions whose caller's window closed so: ${OUTCOMES.join(', ')}`, oneOf(OUTCOMES))
    .option('--status <status>', `only executions in these states: ${STATUSES.join(', ')} (repeat or comma-separate)`, namesFrom(STATUSES), [])
    .option('--since <time>', 'only executions started at or after this ISO 8601 time', isoTime)
    .option('--until <time>', 'only executions started before this ISO 8601 time', isoTime)
    .option('--caller <caller>', 'only executions of this caller, e.g. user:partner')
    .option('--key <key>', 'only executions whose flow control (concurrency, throttle, debounce, batch) computed this key')
    .option('--limit <n>', 'at most this many (1..500, default 50)', wholeNumberIn(1, 500))
    .option('--json', 'print the response as JSON')
    .action(
      action(async (json, options) => {
        const response = await client().listExecutions({
          company: options.company as string | undefined,
          activity: options.activity as string | undefined,
          flowName: options.flow as string | undefined,
          flowVersion: (options.flowVersion as number | undefined) ?? 0,
          outcome: options.outcome as string | undefined,
          statuses: options.status as string[],
          since: options.since as Timestamp | undefined,
          until: options.until as Timestamp | undefined,
          caller: options.caller as string | undefined,
          key: options.key as string | undefined,
          limit: (options.limit as number | undefined) ?? 0,
        });
        if (json) return printJson(io, toJson(ListExecutionsResponseSchema, response, JSON_OPTIONS));
        // A company whose name Temporal cannot search exactly is read only so far (ListExecutionsResponse.partial).
        const partial = response.partial
          ? ['Some executions may be missing: this company is read only so far (its name holds a quote); narrow the filter (--since, --until, --flow, --activity).']
          : [];
        if (response.executions.length === 0) return printLines(io, ['No executions.', ...partial]);
        // Flow control's columns only when some execution has a key or waited.
        const controlled = response.executions.some((e) => e.keys.length > 0 || e.waitedMs > 0n);
        printLines(
          io,
          table(
            ['EXECUTION', 'COMPANY', 'ACTIVITY', 'VERSION', 'OUTCOME', 'STATUS', 'STARTED', ...(controlled ? ['KEY', 'WAITED MS'] : [])],
            response.executions.map((e) => [
              e.executionId,
              e.company,
              e.activity,
              e.flowVersion ? String(e.flowVersion) : '-',
              e.outcome || '-',
              e.status,
              time(e.startedAt),
              ...(controlled ? [e.keys.join(', ') || '-', String(e.waitedMs)] : []),
            ]),
          ),
        );
        if (partial.length > 0) printLines(io, partial);
      }),
    );
  execution
    .command('show')
    .description('one execution: its steps with descriptions, status and timings, and the payload unless doNotLogPayload')
    .argument('<executionId>')
    .option('--json', 'print the response as JSON')
    .action(
      action(async (json, _options, executionId: string) => {
        const response = await client().getExecution({ executionId });
        if (json) return printJson(io, toJson(GetExecutionResponseSchema, response, JSON_OPTIONS));
        const e = response.execution;
        const lines = card(
          [
            ['Execution', e?.executionId],
            ['Company', e?.company],
            ['Activity', e?.activity],
            ['Flow', e?.flowName],
            ['Status', e?.status],
            ['Started', time(e?.startedAt)],
            ['Closed', e?.closedAt ? time(e.closedAt) : undefined],
            ['Caller', response.caller || undefined],
            ['Re-run of', response.rerunOf || undefined],
            ['Re-runs', response.reruns.length ? response.reruns.join(', ') : undefined],
            ['Flow keys', e?.keys.length ? e.keys.join(', ') : undefined],
            ['Waited', e && e.waitedMs > 0n ? `${e.waitedMs} ms before its first step (flow control)` : undefined],
            ['Payload', response.payloadWithheld ? '(withheld: doNotLogPayload)' : response.payloadJson],
          ],
          '',
        );
        lines.push(
          '',
          ...table(
            ['STEP', 'TYPE', 'DESCRIPTION', 'STATUS', 'MS', 'NOTE'],
            response.steps.map((s) => [s.path, s.type, s.description, s.status, String(millis(s.finishedAt) - millis(s.startedAt)), s.note]),
          ),
        );
        printLines(io, lines);
      }),
    );
  addRerunCommand(execution, action, { client, io, confirm: deps.confirm ?? terminalConfirm });
}

function positiveInt(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('a positive integer');
  return value;
}

function time(timestamp: Timestamp | undefined): string {
  return timestamp ? timestampDate(timestamp).toISOString() : '';
}

function millis(timestamp: Timestamp | undefined): number {
  return timestamp ? timestampDate(timestamp).getTime() : 0;
}
