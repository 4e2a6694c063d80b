// A company's last hour at a glance (ExecutionService.GetExecutionOverview):
// calls per minute by outcome and answer times from this engine's metrics,
// failed and running executions from Temporal. Every figure links to the
// execution list behind it; the page is read again every few seconds.
import { Link, useParams } from 'react-router';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService, type CallMinute } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { executionsLink } from '../executions/execution-filter.ts';
import { CallsChart, OUTCOME_LABELS } from './calls-chart.tsx';
import { CompaniesTable } from './companies-table.tsx';
import '../executions/operations.css';

const REFRESH_MS = 5_000;
/** A call's outcome → the executions it started, by their FlowOutcome (refused calls start none). */
const EXECUTION_OUTCOME: Record<string, string> = {
  responded: 'responded',
  sync_timeout: 'sync timeout',
  flow_ended: 'flow ended',
  instant_return: 'instant',
  failed: 'failed',
};

export default function OverviewPage() {
  const { company = '' } = useParams();
  const overview = useQuery(ExecutionService.method.getExecutionOverview, { company }, { refetchInterval: REFRESH_MS });
  const data = overview.data;
  const since = data?.since ? timestampDate(data.since).toISOString() : '';
  const totals = totalsOf(data?.minutes ?? []);
  const calls = Object.values(totals).reduce((sum, count) => sum + count, 0);
  const seconds = (value: number) =>
    value === 0 ? '—' : value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(2)} s`;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title" tabIndex={-1}>
        Overview of {company}
      </h1>
      {overview.isPending ? <Loading what="the overview" /> : null}
      {overview.isError ? <LoadProblem what="the overview" error={overview.error} /> : null}
      {data ? (
        <>
          <p className="muted">
            The last hour. Calls and answer times are those this engine answered
            {data.countingSince ? ` since ${timestampDate(data.countingSince).toLocaleString()}` : ''}; failed and
            running executions are every engine&apos;s.
          </p>
          <ul className="figures" aria-label="The last hour">
            <Figure label="Calls" value={String(calls)} />
            <Figure
              label="Failed calls"
              value={String(totals.failed ?? 0)}
              to={totals.failed ? executionsLink({ company, outcome: 'failed', since }) : undefined}
              bad={(totals.failed ?? 0) > 0}
            />
            <Figure label="Answer time p50" value={seconds(data.answerP50Seconds)} />
            <Figure label="Answer time p95" value={seconds(data.answerP95Seconds)} />
            <Figure
              label="Failed executions"
              value={String(data.failedExecutions)}
              to={executionsLink({ company, statuses: ['FAILED', 'TIMED_OUT'], since })}
              bad={data.failedExecutions > 0n}
            />
            <Figure
              label="Running now"
              value={String(data.runningExecutions)}
              to={executionsLink({ company, statuses: ['RUNNING'] })}
            />
          </ul>
          <h2>Calls per minute</h2>
          <CallsChart minutes={data.minutes} />
          <table className="calls-by-outcome">
            <caption>Calls in the last hour by outcome</caption>
            <thead>
              <tr>
                <th scope="col">Outcome</th>
                <th scope="col">Calls</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(OUTCOME_LABELS).map(([outcome, label]) => (
                <tr key={outcome}>
                  <th scope="row">
                    <span className={`swatch outcome-${outcome}`} aria-hidden="true" /> {label}
                  </th>
                  <td>
                    {EXECUTION_OUTCOME[outcome] && totals[outcome] ? (
                      <Link
                        to={executionsLink({ company, outcome: EXECUTION_OUTCOME[outcome], since })}
                        aria-label={`${totals[outcome]} ${label} calls: their executions`}
                      >
                        {totals[outcome]}
                      </Link>
                    ) : (
                      (totals[outcome] ?? 0)
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <CompaniesTable current={company} />
        </>
      ) : null}
    </section>
  );
}

function Figure({ label, value, to, bad = false }: { label: string; value: string; to?: string; bad?: boolean }) {
  return (
    <li className={bad ? 'figure bad' : 'figure'}>
      <span className="figure-label">{label}</span>
      {to ? (
        <Link className="figure-value" to={to} aria-label={`${label}: ${value}, show them`}>
          {value}
        </Link>
      ) : (
        <span className="figure-value">{value}</span>
      )}
    </li>
  );
}

function totalsOf(minutes: CallMinute[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const minute of minutes)
    for (const { outcome, count } of minute.counts) totals[outcome] = (totals[outcome] ?? 0) + Number(count);
  return totals;
}
