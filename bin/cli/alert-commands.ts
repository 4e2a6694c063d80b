// `flowhook alert set|list|show|test|delete`: a company's alert rules, each a
// call to the engine's AlertService with the admin token. A rule notifies a
// connection of kind slack, teams, webhook or smtp (`flowhook connection set
// … --type slack`); the engine evaluates it in a Temporal workflow of its own
// and sends once when it fires and once when it resolves.
import { createClient, type Client } from '@connectrpc/connect';
import { InvalidArgumentError, type Command } from 'commander';
import {
  AlertCondition,
  AlertService,
  AlertState,
  DeleteAlertResponseSchema,
  GetAlertResponseSchema,
  ListAlertsResponseSchema,
  SetAlertResponseSchema,
  TestAlertResponseSchema,
  type Alert,
} from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { formatDuration, parseDuration } from '../../common/duration.ts';
import { commandRuntime, type CommandWiring } from './admin-action.ts';
import { requireYes, rpcCommand } from './admin-command.ts';
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { positiveInt } from './option-values.ts';
import { card, shellArg, tableOr, timeText } from './output.ts';

export type AlertClient = Client<typeof AlertService>;
export type AlertCommandDeps = CommandWiring<AlertClient>;

const CONDITIONS: Readonly<Record<string, AlertCondition>> = {
  'execution-failed': AlertCondition.EXECUTION_FAILED,
  'calls-refused': AlertCondition.CALLS_REFUSED,
  'sync-timeout': AlertCondition.SYNC_TIMEOUT,
  backlog: AlertCondition.BACKLOG,
  'no-worker': AlertCondition.NO_WORKER,
};

interface SetOptions {
  when: AlertCondition;
  flow?: string;
  reason?: string;
  threshold?: number;
  window?: number;
  connection: string;
}

export function registerAlertCommands(program: Command, deps: AlertCommandDeps = {}): void {
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const runtime = commandRuntime(deps, () =>
    createClient(AlertService, createAdminTransport(adminOptionsFromEnvironment())),
  );
  const alert = program
    .command('alert')
    .description(
      'alert rules: notify a Slack, Teams, webhook or e-mail connection once when a condition fires and once when it resolves',
    );
  rpcCommand(runtime, alert.command('set <company> <name>'), {
    description: 'create or replace an alert rule and start evaluating it',
    options: (command) =>
      command
        .requiredOption('--when <condition>', `what fires it: ${Object.keys(CONDITIONS).join(', ')}`, parseCondition)
        .option('--flow <name>', 'execution-failed, backlog: only this flow (default: every flow of the company)')
        .option('--reason <reason>', 'calls-refused: only this refusal reason (e.g. secret_mismatch, rate_limited)')
        .option('--threshold <n>', 'fire at this many in the window (default 1)', positiveInt)
        .option('--window <duration>', 'the window counted (default 5m; 10s to 7d)', parseWindow)
        .requiredOption('--connection <name>', 'the slack, teams, webhook or smtp connection to notify'),
    response: SetAlertResponseSchema,
    call: (context, company: string, name: string) => {
      const options = context.options as unknown as SetOptions;
      return context.client().setAlert({
        rule: {
          company,
          name,
          condition: options.when,
          flow: options.flow ?? '',
          reason: options.reason ?? '',
          threshold: options.threshold ?? 0,
          windowSeconds: options.window ?? 0,
          connection: options.connection,
        },
      });
    },
    lines: ({ alert: stored, created }) => [
      `${created ? 'Created' : 'Updated'} alert "${stored?.rule?.name}" in company "${stored?.rule?.company}": ${ruleText(stored)}.`,
      stored?.rule?.condition === AlertCondition.NO_WORKER
        ? 'The engines watch the task queue for it (a workflow cannot notice that no worker runs it).'
        : 'Its workflow evaluates it now; send a test message with: ' +
          `flowhook alert test ${shellArg(stored?.rule?.company ?? '')} ${shellArg(stored?.rule?.name ?? '')}`,
    ],
  });
  rpcCommand(runtime, alert.command('list [company]'), {
    description: 'list the alert rules of a company (or of every company) with their state',
    response: ListAlertsResponseSchema,
    call: (context, company?: string) => context.client().listAlerts({ company: company ?? '' }),
    lines: ({ alerts }, _context, company?: string) =>
      tableOr(
        `No alerts${company ? ` in company "${company}"` : ''}. Create one with: flowhook alert set ${shellArg(company || '<company>')} <name> --when execution-failed --connection <name>`,
        ['COMPANY', 'NAME', 'WHEN', 'THRESHOLD', 'CONNECTION', 'STATE', 'LAST NOTIFIED'],
        alerts.map((a) => [
          a.rule?.company ?? '',
          a.rule?.name ?? '',
          conditionText(a),
          thresholdText(a),
          a.rule?.connection ?? '',
          stateText(a.state),
          timeText(a.lastNotifiedAt) || '-',
        ]),
      ),
  });
  rpcCommand(runtime, alert.command('show <company> <name>'), {
    description: 'show an alert rule, its state and its last notification',
    response: GetAlertResponseSchema,
    call: (context, company: string, name: string) => context.client().getAlert({ company, name }),
    lines: ({ alert: found }) => [
      `Alert "${found?.rule?.name}" in company "${found?.rule?.company}"`,
      ...card([
        ['when', conditionText(found)],
        ['threshold', thresholdText(found)],
        ['connection', found?.rule?.connection],
        ['state', stateText(found?.state)],
        ['incidents', String(found?.incidents ?? 0)],
        [
          'last notified',
          found?.lastNotifiedAt ? `${timeText(found.lastNotifiedAt)} (count ${found.lastCount})` : 'never',
        ],
        ['created', timeText(found?.createdAt) || undefined],
        ['updated', timeText(found?.updatedAt) || undefined],
      ]),
    ],
  });
  rpcCommand(runtime, alert.command('test <company> <name>'), {
    description: "send a test message through the alert's connection now",
    response: TestAlertResponseSchema,
    call: (context, company: string, name: string) => context.client().testAlert({ company, name }),
    lines: ({ summary }, _context, company: string, name: string) => [
      `Sent a test message for alert "${name}" in company "${company}": ${summary}`,
    ],
  });
  rpcCommand(runtime, alert.command('delete <company> <name>'), {
    description: 'delete an alert rule and stop evaluating it',
    options: (command) =>
      command.option('--yes', 'confirm: no more notifications from this rule, a firing one included'),
    response: DeleteAlertResponseSchema,
    call: async (context, company: string, name: string) => {
      await requireYes(
        context,
        () =>
          `alert "${name}" of company "${company}" stops notifying (even while it fires); repeat with --yes to delete it`,
      );
      return context.client().deleteAlert({ company, name });
    },
    lines: (_response, _context, company: string, name: string) => [
      `Deleted alert "${name}" from company "${company}"; its evaluation has ended.`,
    ],
  });
}

function parseCondition(value: string): AlertCondition {
  const condition = CONDITIONS[value.trim().toLowerCase()];
  if (condition === undefined) throw new InvalidArgumentError(`expected one of ${Object.keys(CONDITIONS).join(', ')}`);
  return condition;
}

/** `--window 5m` → whole seconds (the engine bounds it). */
function parseWindow(text: string): number {
  const ms = parseDuration(text);
  if (typeof ms === 'string') throw new InvalidArgumentError(ms);
  if (ms % 1000 !== 0 || ms === 0)
    throw new InvalidArgumentError('a whole number of seconds or more, e.g. 90s, 5m, 1h');
  return ms / 1000;
}

function conditionText(alert: Alert | undefined): string {
  const rule = alert?.rule;
  if (!rule) return '';
  const name = Object.entries(CONDITIONS).find(([, value]) => value === rule.condition)?.[0] ?? 'unknown';
  return `${name}${rule.flow ? ` of ${rule.flow}` : ''}${rule.reason ? ` (${rule.reason})` : ''}`;
}

function ruleText(alert: Alert | undefined): string {
  const rule = alert?.rule;
  if (!rule) return '';
  return `${conditionText(alert)}, ${thresholdText(alert)}, notifying ${rule.connection}`;
}

/** "3 in 5m"; a no-worker rule counts no events: "for 5m". */
function thresholdText(alert: Alert | undefined): string {
  const rule = alert?.rule;
  if (!rule) return '';
  const window = formatDuration(rule.windowSeconds * 1000);
  return rule.condition === AlertCondition.NO_WORKER ? `for ${window}` : `${rule.threshold} in ${window}`;
}

function stateText(state: AlertState | undefined): string {
  return state === AlertState.FIRING ? 'FIRING' : 'ok';
}
