// What an alert says, composed by the engine from the rule and the count
// (never from text a worker sent): one title line, a sentence, the console
// page behind it, and the same as data for a program. Grouped: one message
// says how many in how long ("3 failed executions of partner-sync in 5m").
// Pure.
import { formatDuration } from '../../../common/duration.ts';
import type { AlertEvent, AlertMessage } from '../../infrastructure/notify/alert-message.ts';

export interface MessageRule {
  id: string;
  company: string;
  name: string;
  condition: string;
  flow: string | null;
  reason: string | null;
  threshold: number;
  windowSeconds: number;
}

export interface MessageContext {
  /** The console's base URL, when the engine serves one (or FLOWHOOK_CONSOLE_PUBLIC_URL names it). */
  consoleUrl?: string;
  taskQueue: string;
  now: Date;
}

export type MessageKind = { state: 'firing' | 'ok'; incident: number; count: number } | { state: 'test' };

export function composeAlert(rule: MessageRule, kind: MessageKind, context: MessageContext): AlertMessage {
  const window = formatDuration(rule.windowSeconds * 1000);
  const event: AlertEvent =
    kind.state === 'firing' ? 'alert.firing' : kind.state === 'ok' ? 'alert.resolved' : 'alert.test';
  const count = kind.state === 'test' ? rule.threshold : kind.count;
  const what = summary(rule, count, window, context.taskQueue);
  const where = `alert "${rule.name}" of company ${rule.company}`;
  const [title, text] =
    kind.state === 'firing'
      ? [`Firing: ${what}`, `${capital(where)} is firing: ${what} (threshold ${rule.threshold}).`]
      : kind.state === 'ok'
        ? [
            `Resolved: ${rule.name} (${rule.company})`,
            `${capital(where)} resolved: ${resolvedSummary(rule, kind.count, window)}, under its threshold of ${rule.threshold}.`,
          ]
        : [
            `Test: ${rule.name} (${rule.company})`,
            `A test of ${where}, sent on request. When it fires it reads like: ${what}.`,
          ];
  const link = pageOf(rule, context);
  return {
    id:
      kind.state === 'test'
        ? `test_${rule.id}_${context.now.getTime()}`
        : `alert_${rule.id}_${kind.incident}_${kind.state === 'firing' ? 'firing' : 'resolved'}`,
    event,
    title,
    text,
    link,
    at: context.now,
    data: {
      company: rule.company,
      alert: rule.name,
      condition: rule.condition,
      ...(rule.flow && { flow: rule.flow }),
      ...(rule.reason && { reason: rule.reason }),
      state: kind.state === 'firing' ? 'firing' : kind.state === 'ok' ? 'resolved' : 'test',
      ...(kind.state !== 'test' && { incident: kind.incident, count: kind.count }),
      threshold: rule.threshold,
      windowSeconds: rule.windowSeconds,
    },
  };
}

function summary(rule: MessageRule, count: number, window: string, taskQueue: string): string {
  const ofFlow = rule.flow ? `of ${rule.flow}` : `in ${rule.company}`;
  switch (rule.condition) {
    case 'execution-failed':
      return `${count} failed execution${s(count)} ${ofFlow} in ${window}`;
    case 'calls-refused':
      return `${count} refused call${s(count)}${rule.reason ? ` (${rule.reason})` : ''} to ${rule.company} in ${window}`;
    case 'sync-timeout':
      return `${count} sync call${s(count)} to ${rule.company} answered by the sync timeout in ${window}`;
    case 'backlog':
      return `${count} execution${s(count)} ${ofFlow} still waiting or running after ${window}`;
    case 'no-worker':
      return `no worker has polled task queue ${taskQueue} for ${window}`;
    default:
      return `${count} in ${window}`;
  }
}

function resolvedSummary(rule: MessageRule, count: number, window: string): string {
  if (rule.condition === 'no-worker') return 'a worker polls the task queue again';
  return `${count} in the last ${window}`;
}

/** The console page behind the alert, filtered to what it counted. */
function pageOf(rule: MessageRule, context: MessageContext): AlertMessage['link'] {
  if (!context.consoleUrl) return undefined;
  const base = context.consoleUrl.replace(/\/+$/, '');
  const company = encodeURIComponent(rule.company);
  const query = (entries: Record<string, string | null>) =>
    new URLSearchParams(
      Object.entries(entries).filter((entry): entry is [string, string] => Boolean(entry[1])),
    ).toString();
  const since = new Date(context.now.getTime() - rule.windowSeconds * 1000).toISOString();
  switch (rule.condition) {
    case 'execution-failed':
      return {
        label: 'Failed executions',
        url: `${base}/executions?${query({ company: rule.company, flow: rule.flow, status: 'FAILED,TIMED_OUT', since })}`,
      };
    case 'backlog':
      return {
        label: 'Running executions',
        url: `${base}/executions?${query({ company: rule.company, flow: rule.flow, status: 'RUNNING' })}`,
      };
    case 'calls-refused':
      return {
        label: 'Refused calls',
        url: `${base}/deliveries/${company}?${query({ outcome: 'refused', reason: rule.reason, since })}`,
      };
    case 'sync-timeout':
      return { label: 'Deliveries', url: `${base}/deliveries/${company}?${query({ since })}` };
    default:
      return { label: 'Overview', url: `${base}/overview/${company}` };
  }
}

function s(count: number): string {
  return count === 1 ? '' : 's';
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
