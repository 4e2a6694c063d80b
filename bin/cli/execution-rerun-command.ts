// `flowhook execution rerun`: one execution by id, or every closed execution a
// filter matches. The engine does the work (ExecutionService.RerunExecution /
// RerunExecutions): it alone can read a doNotLogPayload payload, and it paces
// bulk re-runs. A bulk re-run is confirmed first — on a terminal by a question
// after the list of what would run, elsewhere only by --yes.
import { createInterface } from 'node:readline/promises';
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { InvalidArgumentError, type Command } from 'commander';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  RerunExecutionResponseSchema,
  RerunExecutionsResponseSchema,
  type RerunExecutionsRequestSchema,
  type RerunExecutionsResponse,
} from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { adminAction, CliError, UsageError, type CommandRuntime } from './admin-action.ts';
import type { ExecutionClient } from './execution-commands.ts';
import { printLines, printResponse, table, timeText } from './output.ts';
import { namesFrom, wholeNumberIn } from './option-values.ts';

/** The states a bulk re-run takes (closed executions only). */
const RERUNNABLE = ['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELED', 'COMPLETED'] as const;

/** Asks a yes/no question on the terminal; undefined when there is no terminal to ask on. */
export type Confirm = (question: string) => Promise<boolean | undefined>;

/** The engine's default for max_count (engine/domain/reruns/bulk-rerun.ts). */
const DEFAULT_MAX = 100;
const FILTER_OPTIONS = ['company', 'activity', 'status', 'since', 'until', 'max', 'dryRun', 'yes'] as const;

export const terminalConfirm: Confirm = async (question) => {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
};

export function addRerunCommand(execution: Command, runtime: CommandRuntime<ExecutionClient>, confirm: Confirm): void {
  execution
    .command('rerun')
    .description(
      'start a new execution with the payload and trigger context of a closed one (or of every one a filter matches), on the flow version now published',
    )
    .argument('[executionId]', 'the execution to re-run; without it, the filter options choose')
    .option('--same-version', "run the original's flow version instead of the one now published")
    .option('--company <name>', 'bulk: executions of this company (required without an id)')
    .option('--activity <activity>', 'bulk: only this webhook activity')
    .option(
      '--status <status>',
      `bulk: ${RERUNNABLE.join(', ')} (repeat or comma-separate; required without an id)`,
      namesFrom(RERUNNABLE),
      [],
    )
    .option('--since <time>', 'bulk: originals started at or after this ISO 8601 time', isoTime)
    .option('--until <time>', 'bulk: originals started before this ISO 8601 time', isoTime)
    .option(
      '--max <n>',
      'bulk: refuse when more than this many match (default 100, at most 1000)',
      wholeNumberIn(1, 1000),
    )
    .option('--dry-run', 'bulk: list what would be re-run and start nothing')
    .option('--yes', 'bulk: re-run without asking')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, executionId?: string) => {
        const { io, json, options } = context;
        const sameVersion = options.sameVersion === true;
        if (executionId !== undefined) {
          const used = FILTER_OPTIONS.filter((name) =>
            name === 'status' ? (options.status as string[]).length > 0 : options[name] !== undefined,
          );
          if (used.length > 0)
            throw new UsageError(
              `an execution id re-runs that execution; drop ${used.map(flag).join(', ')} (or the id, to re-run by filter)`,
            );
          const response = await context.client().rerunExecution({ executionId, sameVersion });
          const rerun = response.rerun;
          return printResponse(io, json, RerunExecutionResponseSchema, response, () => [
            `Re-ran ${rerun!.originalExecutionId} as ${rerun!.executionId} (flow version ${rerun!.flowVersion}).`,
          ]);
        }
        if (!options.company || (options.status as string[]).length === 0) {
          throw new UsageError('give an execution id, or --company and --status to re-run by filter');
        }
        const request: MessageInitShape<typeof RerunExecutionsRequestSchema> = {
          company: options.company as string,
          activity: (options.activity as string | undefined) ?? '',
          statuses: options.status as string[],
          since: options.since as Timestamp | undefined,
          until: options.until as Timestamp | undefined,
          maxCount: (options.max as number | undefined) ?? 0,
          sameVersion,
        };
        if (options.dryRun === true) {
          const listed = await context.client().rerunExecutions({ ...request, dryRun: true });
          return printResponse(io, json, RerunExecutionsResponseSchema, listed, () => [
            `${listed.matched} execution(s) would be re-run${listed.matched > listed.executions.length ? ` (${listed.executions.length} listed)` : ''}.`,
            ...matches(listed),
          ]);
        }
        if (options.yes !== true) {
          const listed = await context.client().rerunExecutions({ ...request, dryRun: true });
          if (listed.matched === 0)
            return printResponse(io, json, RerunExecutionsResponseSchema, listed, () => [
              'No executions match; nothing re-run.',
            ]);
          if (!json) printLines(io, matches(listed));
          const answer = json ? undefined : await confirm(`Re-run these ${listed.matched} execution(s)?`);
          if (answer === undefined)
            throw new CliError(
              `not re-run: ${listed.matched} execution(s) match. Confirm with --yes (check the list first with --dry-run)`,
              Code.FailedPrecondition,
            );
          if (!answer) return printLines(io, ['Nothing re-run.']);
          // What was confirmed is the bound: should more match by now, the engine refuses instead of re-running them unseen.
          request.maxCount = listed.matched;
        }
        // The engine paces starts (at least one per second), so the call lasts up to max seconds: the CLI's usual 60 s would cut it short.
        const response = await context
          .client()
          .rerunExecutions(request, { timeoutMs: 60_000 + (request.maxCount || DEFAULT_MAX) * 1000 });
        printResponse(io, json, RerunExecutionsResponseSchema, response, () => [
          `Re-ran ${response.started.length} of ${response.matched} execution(s).`,
          ...(response.started.length
            ? table(
                ['ORIGINAL', 'RE-RUN', 'VERSION'],
                response.started.map((s) => [s.originalExecutionId, s.executionId, String(s.flowVersion)]),
              )
            : []),
          ...response.skipped.map((s) => `Skipped ${s.originalExecutionId}: ${s.reason}`),
        ]);
      }),
    );
}

function matches(response: RerunExecutionsResponse): string[] {
  if (response.executions.length === 0) return [];
  return table(
    ['EXECUTION', 'ACTIVITY', 'VERSION', 'STATUS', 'STARTED'],
    response.executions.map((e) => [
      e.executionId,
      e.activity,
      e.flowVersion ? String(e.flowVersion) : '-',
      e.status,
      timeText(e.startedAt),
    ]),
  );
}

function flag(option: string): string {
  return `--${option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

export function isoTime(raw: string): Timestamp {
  // A date alone or a time with its zone: a time without one would depend on the operator's clock settings.
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(raw))
    throw new InvalidArgumentError('an ISO 8601 date, or a time with its zone (2026-11-23T18:00:00Z)');
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('an ISO 8601 time');
  return timestampFromDate(date);
}
