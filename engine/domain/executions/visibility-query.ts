// Temporal visibility queries for flowhook's executions, built from operator
// input. Every value is quoted here, so a company or activity name can never
// change the query's shape (a quote in a name stays inside its literal).
import { FLOW_WORKFLOW_TYPE } from '../../../flow/index.ts';
import { InvalidArgumentError } from '../../errors.ts';
import { FLOW_OUTCOMES } from '../../infrastructure/temporal/search-attributes.ts';

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

/** Every state an execution may be in, for the list's filter: the closed ones and RUNNING. */
export const EXECUTION_STATUSES: Readonly<Record<string, string>> = { RUNNING: 'Running', ...RERUNNABLE_STATUSES };

/** The optional filters the list and bulk re-runs share; each narrows, none widens. */
export interface ExecutionFilter {
  activity?: string;
  flowName?: string;
  /** 0 or absent: any version. */
  flowVersion?: number;
  /** responded, sync timeout (sync-timeout), flow ended, instant, failed. */
  outcome?: string;
  caller?: string;
  /** Every label a flow-control key can have (flow-control/coordinator-ids.ts keyLabels): any of them. */
  keyLabels?: readonly string[];
  since?: Date;
  until?: Date;
}

export interface RerunFilter extends ExecutionFilter {
  company: string;
  statuses: readonly string[];
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
  if (!(name in RERUNNABLE_STATUSES))
    throw new InvalidArgumentError(`status: one of ${Object.keys(RERUNNABLE_STATUSES).join(', ')}; got "${raw}"`);
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
  if (filter.statuses.length === 0)
    throw new InvalidArgumentError(`at least one status is required (${Object.keys(RERUNNABLE_STATUSES).join(', ')})`);
  const statuses = [...new Set(filter.statuses.map(rerunnableStatus))].map((name) => quote(RERUNNABLE_STATUSES[name]!));
  return [
    ...flowExecutionsQuery(taskQueue),
    companyClause(filter.company),
    `ExecutionStatus IN (${statuses.join(', ')})`,
    ...filterClauses(filter),
  ].join(' AND ');
}

/** `Company = …`, or the prefix a quote-holding name is found by (see needsExactCompanyCheck). */
export function companyClause(company: string): string {
  return needsExactCompanyCheck(company)
    ? `Company STARTS_WITH ${quote(company.split(/['"\\]/)[0]!)}`
    : `Company = ${quote(company)}`;
}

/** `RUNNING`, `failed`, `timed-out` → Temporal's `ExecutionStatus` value; anything else is refused. */
export function executionStatusValue(raw: string): string {
  if (raw.trim().toUpperCase() === 'RUNNING') return EXECUTION_STATUSES.RUNNING!;
  try {
    return EXECUTION_STATUSES[rerunnableStatus(raw)]!;
  } catch {
    // A listing takes running executions too: the refusal names every status it accepts.
    throw new InvalidArgumentError(`status: one of ${Object.keys(EXECUTION_STATUSES).join(', ')}; got "${raw}"`);
  }
}

/** The clauses of the optional filters, in a fixed order; bad values are refused naming the filter. */
export function filterClauses(filter: ExecutionFilter): string[] {
  if (filter.since && filter.until && filter.since.getTime() >= filter.until.getTime())
    throw new InvalidArgumentError('since must be before until');
  if (filter.flowVersion !== undefined && filter.flowVersion < 0)
    throw new InvalidArgumentError('flow version: a positive number');
  const clauses: string[] = [];
  // Activities are stored (and set as search attributes) lower-cased.
  if (filter.activity) clauses.push(`FlowActivity = ${quote(filter.activity.toLowerCase())}`);
  if (filter.flowName) clauses.push(`FlowName = ${quote(filter.flowName)}`);
  if (filter.flowVersion) clauses.push(`FlowVersion = ${filter.flowVersion}`);
  if (filter.outcome) clauses.push(`FlowOutcome = ${quote(outcomeLabel(filter.outcome))}`);
  if (filter.caller) clauses.push(`FlowCaller = ${quote(filter.caller)}`);
  if (filter.keyLabels?.length) clauses.push(`FlowKey IN (${filter.keyLabels.map(quote).join(', ')})`);
  if (filter.since) clauses.push(`StartTime >= ${quote(filter.since.toISOString())}`);
  if (filter.until) clauses.push(`StartTime < ${quote(filter.until.toISOString())}`);
  return clauses;
}

/** `sync-timeout`, `Flow_Ended` → the FlowOutcome label; anything else is refused. */
function outcomeLabel(raw: string): string {
  const outcome = raw.trim().toLowerCase().replace(/[-_]/g, ' ');
  if (!(FLOW_OUTCOMES as readonly string[]).includes(outcome))
    throw new InvalidArgumentError(`outcome: one of ${FLOW_OUTCOMES.join(', ')}; got "${raw}"`);
  return outcome;
}
