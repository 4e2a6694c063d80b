// The execution list's filter, kept in the address's query so a link
// reproduces the list: ?company=…&flow=…&activity=…&version=…&outcome=…
// &status=FAILED,TIMED_OUT&since=…&until=…&caller=…&key=… — names, times and
// flow-control keys (what `execution list --key` takes), never a secret. The same filter selects a bulk re-run.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';

export interface ExecutionFilter {
  company: string;
  flow: string;
  activity: string;
  /** '' or a positive number. */
  version: string;
  /** A FlowOutcome label: responded, sync timeout, flow ended, instant, failed. */
  outcome: string;
  /** RUNNING, COMPLETED, FAILED, TIMED_OUT, TERMINATED, CANCELED. */
  statuses: string[];
  /** ISO 8601 times; '' for no bound. */
  since: string;
  until: string;
  caller: string;
  /** A flow-control key (concurrency, throttle, debounce, batch) as the key formula yields it. */
  key: string;
}

export const STATUSES = [
  { value: 'RUNNING', label: 'Running' },
  { value: 'COMPLETED', label: 'Completed' },
  { value: 'FAILED', label: 'Failed' },
  { value: 'TIMED_OUT', label: 'Timed out' },
  { value: 'TERMINATED', label: 'Terminated' },
  { value: 'CANCELED', label: 'Canceled' },
] as const;

/** What a re-run may repeat: a closed execution. */
export const RERUNNABLE = STATUSES.map((status) => status.value).filter((status) => status !== 'RUNNING');

export const OUTCOMES = [
  { value: 'responded', label: 'Responded' },
  { value: 'sync timeout', label: 'Sync timeout' },
  { value: 'flow ended', label: 'Flow ended' },
  { value: 'instant', label: 'Instant return' },
  { value: 'failed', label: 'Failed' },
] as const;

const TEXT_KEYS = ['company', 'flow', 'activity', 'version', 'outcome', 'since', 'until', 'caller', 'key'] as const;

export function filterFromSearch(search: URLSearchParams): ExecutionFilter {
  const text = Object.fromEntries(TEXT_KEYS.map((key) => [key, search.get(key) ?? ''])) as Record<
    (typeof TEXT_KEYS)[number],
    string
  >;
  const statuses = (search.get('status') ?? '')
    .split(',')
    .filter((status) => STATUSES.some((known) => known.value === status));
  return { ...text, statuses };
}

/** The query string of a filter: only what is set, in a fixed order (equal filters, equal links). */
export function searchOf(filter: Partial<ExecutionFilter>): string {
  const search = new URLSearchParams();
  for (const key of TEXT_KEYS) if (filter[key]) search.set(key, filter[key]);
  if (filter.statuses?.length) search.set('status', filter.statuses.join(','));
  return search.toString();
}

/** The link to the list behind a figure. */
export function executionsLink(filter: Partial<ExecutionFilter>): string {
  return `/executions?${searchOf(filter)}`;
}

/** Problems a person can fix at the field, by filter name; the engine checks again. */
export function filterProblems(filter: ExecutionFilter): Partial<Record<keyof ExecutionFilter, string>> {
  const problems: Partial<Record<keyof ExecutionFilter, string>> = {};
  if (filter.version && !/^[1-9]\d*$/.test(filter.version)) problems.version = 'A version is a whole number from 1.';
  for (const key of ['since', 'until'] as const)
    if (filter[key] && Number.isNaN(Date.parse(filter[key]))) problems[key] = 'Not a date and time.';
  if (
    !problems.since &&
    !problems.until &&
    filter.since &&
    filter.until &&
    Date.parse(filter.since) >= Date.parse(filter.until)
  )
    problems.until = 'Must be after From.';
  return problems;
}

const timestamp = (iso: string) => (iso ? timestampFromDate(new Date(iso)) : undefined);

/** The ListExecutions request of a filter (a valid one: see filterProblems). */
export function listRequest(filter: ExecutionFilter, limit: number) {
  return {
    company: filter.company,
    flowName: filter.flow,
    activity: filter.activity,
    flowVersion: filter.version ? Number(filter.version) : 0,
    outcome: filter.outcome,
    statuses: filter.statuses,
    since: timestamp(filter.since),
    until: timestamp(filter.until),
    caller: filter.caller,
    key: filter.key,
    limit,
  };
}

/** The RerunExecutions request of the same filter: closed executions only (all of them when no status is chosen). */
export function rerunRequest(filter: ExecutionFilter, dryRun: boolean) {
  const closed = filter.statuses.filter((status) => status !== 'RUNNING');
  const { limit: _limit, ...request } = listRequest(filter, 0);
  return { ...request, statuses: closed.length > 0 ? closed : RERUNNABLE, dryRun, maxCount: BULK_MAX };
}

/** The engine's most per bulk re-run (engine/domain/reruns/bulk-rerun.ts). */
export const BULK_MAX = 1000;
