// Temporal visibility queries for flowhook's executions, built from operator
// input. Every value is quoted here, so a company or activity name can never
// change the query's shape (a quote in a name stays inside its literal).
import { FLOW_WORKFLOW_TYPE } from '../../workflows/shared/index.ts';
import { InvalidArgumentError } from '../errors.ts';

/**
 * What an operator may re-run: closed executions only (a running one has not
 * failed yet), named as the CLI prints them → Temporal's `ExecutionStatus` value.
 */
export const RERUNNABLE_STATUSES: Readonly<Record<string, string>> = {
  FAILED: 'Failed',
  TIMED_OUT: 'TimedOut',
  TERMINATED: 'Terminated',
  CANCELED: 'Canceled',
  COMPLETED: 'Completed',
};

export interface RerunFilter {
  company: string;
  activity?: string;
  statuses: readonly string[];
  since?: Date;
  until?: Date;
}

/** A visibility-query string literal. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Only flowhook's flow executions on this engine's task queue: the base of every query. */
export function flowExecutionsQuery(taskQueue: string): string[] {
  return [`WorkflowType = ${quote(FLOW_WORKFLOW_TYPE)}`, `TaskQueue = ${quote(taskQueue)}`];
}

/** `FAILED`, `timed-out`, `Timed_Out`, `CANCELLED` → the CLI's name; anything else is refused. */
export function rerunnableStatus(raw: string): string {
  const name = raw
    .trim()
    .toUpperCase()
    .replace(/-/g, '_')
    .replace(/^CANCELLED$/, 'CANCELED');
  if (!(name in RERUNNABLE_STATUSES)) throw new InvalidArgumentError(`status: one of ${Object.keys(RERUNNABLE_STATUSES).join(', ')}; got "${raw}"`);
  return name;
}

/**
 * Temporal's SQLite visibility store (the dev server's) never matches a keyword
 * holding a quote, however it is escaped. Such a company is selected by the
 * prefix before its first quote, and the caller keeps only exact matches.
 */
export function needsExactCompanyCheck(company: string): boolean {
  return /['"\\]/.test(company);
}

export function rerunQuery(taskQueue: string, filter: RerunFilter): string {
  if (!filter.company) throw new InvalidArgumentError('company is required: re-runs are chosen within one company');
  if (filter.statuses.length === 0) throw new InvalidArgumentError(`at least one status is required (${Object.keys(RERUNNABLE_STATUSES).join(', ')})`);
  if (filter.since && filter.until && filter.since.getTime() >= filter.until.getTime()) throw new InvalidArgumentError('since must be before until');
  const statuses = [...new Set(filter.statuses.map(rerunnableStatus))].map((name) => quote(RERUNNABLE_STATUSES[name]!));
  const company = needsExactCompanyCheck(filter.company) ? `Company STARTS_WITH ${quote(filter.company.split(/['"\\]/)[0]!)}` : `Company = ${quote(filter.company)}`;
  const clauses = [...flowExecutionsQuery(taskQueue), company];
  // Activities are stored (and set as search attributes) lower-cased.
  if (filter.activity) clauses.push(`FlowActivity = ${quote(filter.activity.toLowerCase())}`);
  clauses.push(`ExecutionStatus IN (${statuses.join(', ')})`);
  if (filter.since) clauses.push(`StartTime >= ${quote(filter.since.toISOString())}`);
  if (filter.until) clauses.push(`StartTime < ${quote(filter.until.toISOString())}`);
  return clauses.join(' AND ');
}
