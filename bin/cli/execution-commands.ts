// `flowhook execution list|show|rerun`: the execution log, read through the
// engine's ExecutionService (admin token), and re-runs (execution-rerun-command.ts). The CLI never talks to Temporal
// itself; payloads of doNotLogPayload executions are withheld by the engine.
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { createClient, type Client } from '@connectrpc/connect';
import type { Command } from 'commander';
import {
  ExecutionService,
  GetExecutionResponseSchema,
  ListExecutionsResponseSchema,
} from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { commandRuntime, type CommandWiring } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { addRerunCommand, isoTime, terminalConfirm, type Confirm } from './execution-rerun-command.ts';
import { namesFrom, oneOf, positiveInt, wholeNumberIn } from './option-values.ts';

/** What `execution list` filters by (the engine's ListExecutions accepts exactly these). */
const STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELED'] as const;
const OUTCOMES = ['responded', 'sync-timeout', 'flow-ended', 'instant', 'failed'] as const;
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { card, table, timeText } from './output.ts';

export type ExecutionClient = Client<typeof ExecutionService>;

export interface ExecutionCommandDeps extends CommandWiring<ExecutionClient> {
  /** Asks before a bulk re-run; default: the terminal, or no one (then --yes is needed). */
  confirm?: Confirm;
}

/** `execution list`'s options (commander's opts()). */
type ListOptions = {
  company?: string;
  activity?: string;
  flow?: string;
  flowVersion?: number;
  outcome?: string;
  status: string[];
  since?: Timestamp;
  until?: Timestamp;
  caller?: string;
  key?: string;
  limit?: number;
};

export function registerExecutionCommands(program: Command, deps: ExecutionCommandDeps = {}): void {
  const runtime = commandRuntime(deps, () =>
    createClient(ExecutionService, createAdminTransport(adminOptionsFromEnvironment())),
  );
  const execution = program.command('execution').description('executions of published flows and their execution log');
  rpcCommand(runtime, execution.command('list'), {
    description: 'recent executions, most recent first',
    options: (command) =>
      command
        .option('--company <name>', 'only this company')
        .option('--activity <activity>', 'only this webhook activity')
        .option('--flow <name>', 'only this flow')
        .option('--flow-version <n>', 'only this version of the flow', positiveInt)
        .option(
          '--outcome <outcome>',
          `only executions whose caller's window closed so: ${OUTCOMES.join(', ')}`,
          oneOf(OUTCOMES),
        )
        .option(
          '--status <status>',
          `only executions in these states: ${STATUSES.join(', ')} (repeat or comma-separate)`,
          namesFrom(STATUSES),
          [],
        )
        .option('--since <time>', 'only executions started at or after this ISO 8601 time', isoTime)
        .option('--until <time>', 'only executions started before this ISO 8601 time', isoTime)
        .option('--caller <caller>', 'only executions of this caller, e.g. user:partner')
        .option(
          '--key <key>',
          'only executions whose flow control (concurrency, throttle, debounce, batch) computed this key',
        )
        .option('--limit <n>', 'at most this many (1..500, default 50)', wholeNumberIn(1, 500)),
    response: ListExecutionsResponseSchema,
    call: (context) => {
      const { company, activity, flow, flowVersion, outcome, status, since, until, caller, key, limit } =
        context.options as ListOptions;
      return context.client().listExecutions({
        company,
        activity,
        flowName: flow,
        flowVersion: flowVersion ?? 0,
        outcome,
        statuses: status,
        since,
        until,
        caller,
        key,
        limit: limit ?? 0,
      });
    },
    lines: (response) => {
      // A company whose name Temporal cannot search exactly is read only so far (ListExecutionsResponse.partial).
      const partial = response.partial
        ? [
            'Some executions may be missing: this company is read only so far (its name holds a quote); narrow the filter (--since, --until, --flow, --activity).',
          ]
        : [];
      if (response.executions.length === 0) return ['No executions.', ...partial];
      // Flow control's columns only when some execution has a key or waited.
      const controlled = response.executions.some((e) => e.keys.length > 0 || e.waitedMs > 0n);
      const rows = table(
        [
          'EXECUTION',
          'COMPANY',
          'ACTIVITY',
          'VERSION',
          'OUTCOME',
          'STATUS',
          'STARTED',
          ...(controlled ? ['KEY', 'WAITED MS'] : []),
        ],
        response.executions.map((e) => [
          e.executionId,
          e.company,
          e.activity,
          e.flowVersion ? String(e.flowVersion) : '-',
          e.outcome || '-',
          e.status,
          timeText(e.startedAt),
          ...(controlled ? [e.keys.join(', ') || '-', String(e.waitedMs)] : []),
        ]),
      );
      return [...rows, ...partial];
    },
  });
  rpcCommand(runtime, execution.command('show <executionId>'), {
    description:
      'one execution: its steps with descriptions, status and timings, and the payload unless doNotLogPayload',
    response: GetExecutionResponseSchema,
    call: (context, executionId: string) => context.client().getExecution({ executionId }),
    lines: (response) => {
      const e = response.execution;
      const lines = card(
        [
          ['Execution', e?.executionId],
          ['Company', e?.company],
          ['Activity', e?.activity],
          ['Flow', e?.flowName],
          ['Status', e?.status],
          ['Started', timeText(e?.startedAt)],
          ['Closed', e?.closedAt ? timeText(e.closedAt) : undefined],
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
          response.steps.map((s) => [
            s.path,
            s.type,
            s.description,
            s.status,
            String(millis(s.finishedAt) - millis(s.startedAt)),
            s.note,
          ]),
        ),
      );
      return lines;
    },
  });
  addRerunCommand(execution, runtime, deps.confirm ?? terminalConfirm);
}

function millis(timestamp: Timestamp | undefined): number {
  return timestamp ? timestampDate(timestamp).getTime() : 0;
}
