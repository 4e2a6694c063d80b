// Failures and queued work of every company the person sees, one row each,
// so a problem in another company is not missed while one company's overview
// is open. Each row asks the same RPC as the overview (its role is checked per
// company), less often.
import { Link } from 'react-router';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { executionsLink } from '../executions/execution-filter.ts';

const ROW_REFRESH_MS = 15_000;

export function CompaniesTable({ current }: { current: string }) {
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const names = (companies.data?.companies ?? []).map((company) => company.name);
  if (names.length < 2) return null;
  return (
    <table className="companies-work">
      <caption>Every company you see, in the last hour</caption>
      <thead>
        <tr>
          <th scope="col">Company</th>
          <th scope="col">Failed calls</th>
          <th scope="col">Failed executions</th>
          <th scope="col">Running now</th>
        </tr>
      </thead>
      <tbody>
        {names.map((name) => (
          <CompanyRow key={name} company={name} current={name === current} />
        ))}
      </tbody>
    </table>
  );
}

function CompanyRow({ company, current }: { company: string; current: boolean }) {
  const overview = useQuery(
    ExecutionService.method.getExecutionOverview,
    { company },
    { refetchInterval: ROW_REFRESH_MS },
  );
  const data = overview.data;
  const since = data?.since ? timestampDate(data.since).toISOString() : '';
  const failedCalls = (data?.minutes ?? []).reduce(
    (sum, minute) => sum + Number(minute.counts.find((count) => count.outcome === 'failed')?.count ?? 0n),
    0,
  );
  const unknown = overview.isError ? 'unknown' : '…';
  return (
    <tr aria-current={current ? 'true' : undefined}>
      <th scope="row">
        <Link to={`/overview/${encodeURIComponent(company)}`}>{company}</Link>
      </th>
      <td>{data ? failedCalls : unknown}</td>
      <td>
        {data ? (
          <Link
            to={executionsLink({ company, statuses: ['FAILED', 'TIMED_OUT'], since })}
            aria-label={`${company}: ${data.failedExecutions} failed executions`}
          >
            {String(data.failedExecutions)}
          </Link>
        ) : (
          unknown
        )}
      </td>
      <td>
        {data ? (
          <Link
            to={executionsLink({ company, statuses: ['RUNNING'] })}
            aria-label={`${company}: ${data.runningExecutions} running executions`}
          >
            {String(data.runningExecutions)}
          </Link>
        ) : (
          unknown
        )}
      </td>
    </tr>
  );
}
