// An erasure request: everything of one subject — a company, or one caller as executions and
// deliveries name it (`user:<name>`, `app:<clientId>`, `account:<name>`) — deleted before its
// retention: its executions in Temporal (running ones are terminated by the deletion), found by
// their Company or FlowCaller search attribute on this deployment's task queue; its deliveries;
// the callback rows and record idempotency rows of those executions (of the company: all of its).
//
// Kept on purpose (the response says so): audit events — evidence of who did what, this erasure
// included, bounded by FLOWHOOK_AUDIT_RETENTION; provider_delivery rows — a digest and a time, no
// data, and what refuses a replayed old delivery that would start the erased data again; a
// company's records — the data its flows keep on purpose, not a log of calls.
//
// Executions go first, so none of them writes a new row behind the deletion.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { InvalidArgumentError } from '../../errors.ts';
import { COMPANY_KEY, FLOW_CALLER_KEY } from '../../infrastructure/temporal/search-attributes.ts';
import { companyClause, quote } from '../executions/visibility-query.ts';

export type ErasureSubject = { company: string } | { caller: string };
export const ERASED_KINDS = ['executions', 'deliveries', 'callbacks', 'record_writes'] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];

export const KEPT_BY_ERASURE = [
  'audit events: evidence of who did what (this erasure included); they go after FLOWHOOK_AUDIT_RETENTION',
  'provider_delivery rows: a digest and a time, no data; they refuse a replayed old delivery that would bring the erased data back',
  "a company's records: the data its flows keep on purpose (the record step), not a log of calls",
] as const;

const CALLER_FORM = /^(user|app|account):\S/;
/** Executions deleted at once. */
const CONCURRENCY = 8;
/** Execution ids per SQL statement. */
const IDS_PER_STATEMENT = 500;

export interface ErasureDeps {
  orm: MikroORM;
  temporal: Client;
  namespace: string;
  taskQueue: string;
}

/** The subject a request names; refuses anything but exactly one company or one caller of a known form. */
export function erasureSubject(request: { company: string; caller: string }): ErasureSubject {
  const company = request.company.trim();
  const caller = request.caller.trim();
  if ((company === '') === (caller === ''))
    throw new InvalidArgumentError('name exactly one subject: a company, or a caller');
  if (company !== '') return { company };
  if (!CALLER_FORM.test(caller))
    throw new InvalidArgumentError(
      `caller: user:<name>, app:<clientId> or account:<name>, as deliveries and executions name callers; got "${caller}"`,
    );
  return { caller };
}

/** Counts (dryRun) or deletes the subject's executions and rows; resolves to how many of each. */
export async function eraseSubject(
  deps: ErasureDeps,
  subject: ErasureSubject,
  dryRun: boolean,
): Promise<Record<ErasedKind, number>> {
  const runs = await subjectExecutions(deps, subject);
  if (!dryRun) await deleteExecutions(deps, runs);
  const executionIds = [...new Set(runs.map((run) => run.workflowId))];
  const sql = deps.orm.em.getConnection();
  const rows = async (statement: string, params: unknown[]): Promise<number> => {
    if (dryRun) {
      const found = await sql.execute<{ n: number }[]>(`select count(*)::int as n ${statement}`, params);
      return Number(found[0]?.n ?? 0);
    }
    const result = await sql.execute<{ affectedRows: number }>(`delete ${statement}`, params, 'run');
    return Number(result.affectedRows ?? 0);
  };
  const byIds = async (statement: (placeholders: string) => string): Promise<number> => {
    let total = 0;
    for (let at = 0; at < executionIds.length; at += IDS_PER_STATEMENT) {
      const ids = executionIds.slice(at, at + IDS_PER_STATEMENT);
      total += await rows(statement(ids.map(() => '?').join(', ')), ids);
    }
    return total;
  };
  if ('company' in subject) {
    const { company } = subject;
    return {
      executions: runs.length,
      deliveries: await rows('from "delivery" where "company" = ?', [company]),
      callbacks: await rows('from "callback_wait" where "company" = ?', [company]),
      record_writes: await rows(
        'from "record_write" where "company_id" in (select "id" from "company" where "name" = ?)',
        [company],
      ),
    };
  }
  return {
    executions: runs.length,
    deliveries: await rows('from "delivery" where "caller" = ?', [subject.caller]),
    callbacks: await byIds((ids) => `from "callback_wait" where "execution_id" in (${ids})`),
    // The record step's idempotency key is `<execution id>/<step>` (workflows/activities/record.ts).
    record_writes: await byIds(
      (ids) =>
        `from "record_write" where split_part("idempotency_key", '/', 1) in (${ids}) and "idempotency_key" like '%/%'`,
    ),
  };
}

interface Run {
  workflowId: string;
  runId: string;
}

/** Every run (open or closed) on this task queue whose Company or FlowCaller is exactly the subject. */
async function subjectExecutions(deps: ErasureDeps, subject: ErasureSubject): Promise<Run[]> {
  const [clause, key, value] =
    'company' in subject
      ? [companyClause(subject.company), COMPANY_KEY, subject.company]
      : [`FlowCaller = ${quote(subject.caller)}`, FLOW_CALLER_KEY, subject.caller];
  const query = `TaskQueue = ${quote(deps.taskQueue)} AND ${clause}`;
  const runs: Run[] = [];
  // The clause may match more than the subject (a company with a quote is found by its prefix): only exact matches count.
  const exact = (row: WorkflowExecutionInfo) => row.typedSearchAttributes.get(key) === value;
  for await (const row of deps.temporal.workflow.list({ query, pageSize: 1000 }))
    if (exact(row)) runs.push({ workflowId: row.workflowId, runId: row.runId });
  return runs;
}

async function deleteExecutions(deps: ErasureDeps, runs: readonly Run[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const run = runs[next++]!;
      try {
        await deps.temporal.workflowService.deleteWorkflowExecution({
          namespace: deps.namespace,
          workflowExecution: { workflowId: run.workflowId, runId: run.runId },
        });
      } catch (error) {
        // Already gone (its retention ran out, or another erasure deleted it): what was asked holds.
        if ((error as { code?: number }).code !== 5) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, runs.length) }, worker));
}
