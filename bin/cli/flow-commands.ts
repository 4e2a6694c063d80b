// `flowhook flow apply|show|list|publish|unpublish` (and pause|resume,
// flow-pause-commands.ts): flows as code against the
// engine's FlowAdminService.
import { toJson } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { InvalidArgumentError, type Command } from 'commander';
import {
  ApplyFlowResponseSchema,
  GetFlowResponseSchema,
  ListFlowsResponseSchema,
  PublishFlowResponseSchema,
  UnpublishFlowResponseSchema,
  type ApplyFlowResponse,
  type FlowSummary,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  adminAction,
  CliError,
  describeError,
  reportError,
  type AdminContext,
  type AdminRuntime,
} from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { flowCard } from './flow-card.ts';
import { registerFlowSchemaCommand } from './flow-schema-command.ts';
import { registerFlowPauseCommands } from './flow-pause-commands.ts';
import { readFlowFileWithPositions, type PlacedFlow } from './flow-file.ts';
import { movesOf } from './flow-apply-moves.ts';
import { terminalConfirm, type Confirm } from './execution-rerun-command.ts';
import type { Flow } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { placePublishProblems } from './publish-problem-positions.ts';
import { JSON_OPTIONS, printJson, printLines, shellArg, shownOnce, tableOr, timeText } from './output.ts';

export function registerFlowCommands(
  program: Command,
  runtime: AdminRuntime,
  confirm: Confirm = terminalConfirm,
): void {
  const flow = program.command('flow').description('flows as code: apply files, inspect, publish');
  registerFlowSchemaCommand(flow, runtime);
  registerFlowPauseCommands(flow, runtime);

  flow
    .command('apply')
    .description('save each flow file as a new version (creating the flow on first apply)')
    .argument('<file...>', 'flow files (.yaml, .yml or .json)')
    .option('--publish', 'publish the applied version')
    .option(
      '--yes',
      'apply even when the version moves the published flow: another activity, or no provider route where a hook secret is set',
    )
    .option('--json', 'print {"results": [...]} with one entry per file')
    .action(adminAction(runtime, (context, files: string[]) => applyFiles(context, files, confirm)));

  rpcCommand(runtime, flow.command('show <company> <name>'), {
    description: 'show the flow card, with the Webhook Call once published',
    response: GetFlowResponseSchema,
    call: (context, company: string, name: string) => context.client().getFlow({ company, name }),
    lines: (response) => flowCard(response),
  });

  rpcCommand(runtime, flow.command('list'), {
    description: 'list flows, of all companies or of one',
    options: (command) => command.option('--company <name>', 'only this company'),
    response: ListFlowsResponseSchema,
    call: (context) => context.client().listFlows({ company: (context.options.company as string | undefined) ?? '' }),
    lines: ({ flows }, context) => {
      const company = context.options.company as string | undefined;
      const none = company
        ? `No flows in company "${company}".`
        : 'No flows yet. Create one with: flowhook flow apply <file>';
      return tableOr(
        none,
        ['COMPANY', 'NAME', 'ACTIVITY', 'LATEST', 'PUBLISHED', 'SECRET', 'UPDATED', 'TRIGGER'],
        flows.map(listRow),
      );
    },
  });

  rpcCommand(runtime, flow.command('publish <company> <name>'), {
    description: 'validate and publish the latest version (or --version N)',
    options: (command) =>
      command.option('--version <n>', 'publish this version instead of the latest', positiveInteger),
    response: PublishFlowResponseSchema,
    call: (context, company: string, name: string) =>
      context.client().publishFlow({ company, name, version: versionOf(context) }),
    lines: ({ flow: summary, warnings }, context, company: string, name: string) => [
      `Published flow "${name}" (company ${company}): version ${summary?.publishedVersion ?? versionOf(context)} now answers activity ${summary?.activity ?? ''}.`,
      ...warnings.map((warning) => `  warning: ${warning}`),
      ...secretReminder(company, summary?.activity ?? ''),
    ],
  });

  rpcCommand(runtime, flow.command('unpublish <company> <name>'), {
    description: 'take the flow offline; its versions and secret are kept',
    response: UnpublishFlowResponseSchema,
    call: (context, company: string, name: string) => context.client().unpublishFlow({ company, name }),
    lines: (response, _context, company: string, name: string) => [
      `Unpublished flow "${name}" (company ${company}): activity ${response.flow?.activity ?? ''} no longer accepts webhook calls.`,
    ],
  });
}

/** `flow publish --version`; 0, the latest, when not given. */
function versionOf(context: AdminContext): number {
  return (context.options.version as number | undefined) ?? 0;
}

/**
 * All files are read and checked before anything is sent, so a typo in one
 * file applies nothing. Engine errors are per file: the others are still
 * applied, and every generated secret is printed — it is shown only once.
 */
async function applyFiles(context: AdminContext, files: string[], confirm: Confirm): Promise<void> {
  const publish = context.options.publish === true;
  const confirmed = context.options.yes === true;
  const read = await Promise.allSettled(files.map((file) => readFlowFileWithPositions(file)));
  const problems = read.flatMap((result) =>
    result.status === 'rejected' ? [describeError(result.reason).message] : [],
  );
  if (problems.length > 0) throw new CliError(`${problems.join('\n')}\nnothing was applied`, Code.InvalidArgument);
  const flows = read.map((result) => (result as PromiseFulfilledResult<PlacedFlow>).value);

  const results: unknown[] = [];
  for (const [i, { flow, positionOf }] of flows.entries()) {
    const file = files[i]!;
    try {
      if (!confirmed) await confirmMoves(context, confirm, file, flow);
      const response = await context.client().applyFlow({ flow, publish });
      // Warnings name fields, as errors do: the file's line goes in front of each.
      response.warnings = response.warnings.map((warning) => placePublishProblems(warning, file, positionOf));
      results.push({ file, ...(toJson(ApplyFlowResponseSchema, response, JSON_OPTIONS) as object) });
      if (!context.json) printLines(context.io, appliedLines(file, response));
    } catch (caught) {
      // The engine names fields; the file's lines are only known here.
      const error =
        caught instanceof ConnectError
          ? new ConnectError(placePublishProblems(caught.rawMessage, file, positionOf), caught.code, caught.metadata)
          : caught;
      results.push({ file, error: describeError(error) });
      // The JSON document comes once, at the end; here only stderr.
      reportError(context.io, false, error, file);
      if (!context.json) context.io.err(`${file}: nothing was stored for this file (a failed apply changes nothing)\n`);
      context.fail();
    }
  }
  if (context.json) printJson(context.io, { results });
}

/**
 * Asks before a version that moves the published flow for its callers (flow-apply-moves.ts); throws, for this
 * file only, when there is no terminal to ask on or the answer is no.
 */
async function confirmMoves(context: AdminContext, confirm: Confirm, file: string, flow: Flow): Promise<void> {
  const latest = await context
    .client()
    .getFlow({ company: flow.company, name: flow.name })
    .catch((error: unknown) => {
      if (error instanceof ConnectError && error.code === Code.NotFound) return undefined;
      throw error;
    });
  const publishedVersion = latest?.flow?.publishedVersion ?? 0;
  if (publishedVersion === 0) return;
  // The latest version is the published one unless a draft was saved after it: only then is it read on its own.
  const published =
    publishedVersion === latest!.flow!.latestVersion
      ? latest!
      : await context.client().getFlow({ company: flow.company, name: flow.name, version: publishedVersion });
  const moves = movesOf(published, flow);
  if (moves.length === 0) return;
  const what = `${file} moves the published flow "${flow.name}" (company ${flow.company}, version ${publishedVersion})${publish(context) ? '' : ' once published'}:\n${moves.map((move) => `  - ${move}`).join('\n')}`;
  if (!context.json) context.io.err(`${what}\n`);
  const answer = await confirm('Apply it anyway?');
  if (answer === true) return;
  throw new CliError(
    `${answer === false ? 'not applied' : `${context.json ? `${what}\n` : ''}not applied without a yes`}: give --yes to apply a version that moves the published flow (or keep its activity${moves.length > 1 ? ' and provider route' : ''})`,
    Code.FailedPrecondition,
  );
}

function publish(context: AdminContext): boolean {
  return context.options.publish === true;
}

function appliedLines(file: string, response: ApplyFlowResponse): string[] {
  const summary = response.flow;
  const name = summary?.name ?? '';
  const company = summary?.company ?? '';
  const latest = summary?.latestVersion ?? 0;
  const published = summary?.publishedVersion ?? 0;
  const action = response.created ? 'created' : response.newVersion ? 'updated' : 'unchanged';
  const version =
    response.newVersion || response.created ? `version ${latest}` : `version ${latest} already has this definition`;
  const state =
    published === latest
      ? 'published'
      : published > 0
        ? `draft; version ${published} stays published (publish with: flowhook flow publish ${shellArg(company)} ${shellArg(name)})`
        : `not published (publish with: flowhook flow publish ${shellArg(company)} ${shellArg(name)})`;
  const lines = [`${file}: flow "${name}" (company ${company}) ${action} — ${version}, ${state}`];
  for (const warning of response.warnings) lines.push(`  warning: ${warning}`);
  if (response.secret) lines.push(...shownOnce(`secret of activity ${summary?.activity ?? ''}`, response.secret));
  else if (published > 0) lines.push(...secretReminder(company, summary?.activity ?? ''));
  return lines;
}

/**
 * A publish that shows no secret (the flow existed already) says where the
 * secret comes from and the exact command that makes a new one, so a flow
 * never goes live with a secret nobody has.
 */
function secretReminder(company: string, activity: string): string[] {
  return [
    `  callers send the flow secret shown when the flow was created; lost it? make a new one (the old one stops working): flowhook secret rotate ${shellArg(company)} ${shellArg(activity)}`,
  ];
}

function listRow(flow: FlowSummary): string[] {
  return [
    flow.company,
    flow.name,
    flow.activity,
    String(flow.latestVersion),
    flow.publishedVersion > 0 ? `${flow.publishedVersion}${flow.pausedAt ? ' (paused)' : ''}` : '—',
    flow.hasSecret ? 'set' : 'none',
    timeText(flow.updatedAt).replace(/\.\d+Z$/, 'Z'),
    // Last, so a long description does not push the other columns around.
    flow.triggerDescription || '—',
  ];
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a version number (1, 2, …)');
  return number;
}
