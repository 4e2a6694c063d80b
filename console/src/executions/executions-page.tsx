// A company's executions, newest first, with the list's filter in the address
// (execution-filter.ts): a link reproduces the list. It is read again every
// few seconds, so running executions move on while the page is open.
// Editors re-run what the filter matches (bulk-rerun.tsx). A company whose
// name holds a quote is listed from a bounded reading (the engine's `partial`):
// the page says when executions may be missing.
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { mayIn, useSession } from '../session/session.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { useDebounced } from '../ui/use-debounced.ts';
import { BulkRerun } from './bulk-rerun.tsx';
import { filterFromSearch, filterProblems, listRequest, searchOf, type ExecutionFilter } from './execution-filter.ts';
import { ExecutionFilterForm } from './execution-filter-form.tsx';
import { between, durationText, timeText } from './format.ts';
import './operations.css';

/** How often the list is read again while the page is open. */
const REFRESH_MS = 4_000;
const LIMIT = 200;

export default function ExecutionsPage() {
  const [search, setSearch] = useSearchParams();
  const filter = filterFromSearch(search);
  const { person } = useSession();
  const change = (next: ExecutionFilter) => setSearch(searchOf(next), { replace: true });
  // Typing in a text filter asks the engine once the typing pauses.
  const settled = useDebounced(filter, 300);
  const problems = filterProblems(settled);
  const valid = settled.company !== '' && Object.keys(problems).length === 0;
  const executions = useQuery(ExecutionService.method.listExecutions, listRequest(settled, LIMIT), { enabled: valid, refetchInterval: REFRESH_MS });
  const rows = executions.data?.executions ?? [];
  return (
    <section aria-labelledby="executions-title">
      <div className="page-head">
        <h1 id="executions-title" tabIndex={-1}>
          Executions{filter.company ? ` of ${filter.company}` : ''}
        </h1>
        {filter.company && mayIn(person, filter.company, 'editor') ? <BulkRerun filter={settled} disabled={!valid} /> : null}
      </div>
      {filter.company === '' ? <p>Choose a company in the header.</p> : <ExecutionFilterForm filter={filter} problems={filterProblems(filter)} onChange={change} />}
      {valid && executions.isPending ? <Loading what="the executions" /> : null}
      {executions.isError ? <LoadProblem what="the executions" error={executions.error} /> : null}
      {executions.data ? (
        <>
          <p role="status" className="count">
            {rows.length === 0
              ? 'No executions match.'
              : `${rows.length === LIMIT ? `The newest ${LIMIT}` : rows.length} execution${rows.length === 1 ? '' : 's'}${rows.some((row) => row.status === 'RUNNING') ? ', some still running (the list follows them)' : ''}`}
          </p>
          {executions.data.partial ? (
            <p className="muted">
              The list may miss executions of {filter.company}: Temporal cannot search for a company name with a quote, so flowhook reads the executions of companies whose names
              start like it and stops after a bound. Narrow the filter (a time range, a flow) to see the rest.
            </p>
          ) : null}
          {rows.length > 0 ? (
            <table className="executions">
              <caption className="visually-hidden">Executions{filter.company ? ` of ${filter.company}` : ''}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Execution</th>
                  <th scope="col">Flow</th>
                  <th scope="col">Status</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Caller</th>
                  <th scope="col">Started</th>
                  <th scope="col">Took</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.executionId}>
                    <th scope="row">
                      <Link to={`/executions/${encodeURIComponent(row.executionId)}`}>{row.executionId}</Link>
                    </th>
                    <td>
                      {row.flowName || row.activity}
                      {row.flowVersion ? <span className="muted"> v{row.flowVersion}</span> : null}
                    </td>
                    <td>
                      <span className={`status status-${row.status.toLowerCase()}`}>{row.status.toLowerCase().replace('_', ' ')}</span>
                    </td>
                    <td>{row.outcome || '—'}</td>
                    <td>{row.caller ? <code>{row.caller}</code> : '—'}</td>
                    <td>{timeText(row.startedAt)}</td>
                    <td>{row.closedAt ? durationText(between(row.startedAt, row.closedAt)) : 'running'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
