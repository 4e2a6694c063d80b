// A company's executions, newest first, with the list's filter in the address
// (execution-filter.ts): a link reproduces the list. It is read again every
// few seconds, so running executions move on while the page is open.
// Editors re-run what the filter matches (bulk-rerun.tsx). A company whose
// name holds a quote is listed from a bounded reading (the engine's `partial`):
// the page says when executions may be missing.
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService, type ExecutionSummary } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { mayIn, useSession } from '../session/session.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { Loaded } from '../ui/states.tsx';
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
  const executions = useQuery(ExecutionService.method.listExecutions, listRequest(settled, LIMIT), {
    enabled: valid,
    refetchInterval: REFRESH_MS,
  });
  const title = `Executions${filter.company ? ` of ${filter.company}` : ''}`;
  return (
    <Page
      id="executions-title"
      title={title}
      actions={
        filter.company && mayIn(person, filter.company, 'editor') ? (
          <BulkRerun filter={settled} disabled={!valid} />
        ) : null
      }
    >
      {filter.company === '' ? (
        <p>Choose a company in the header.</p>
      ) : (
        <ExecutionFilterForm filter={filter} problems={filterProblems(filter)} onChange={change} />
      )}
      <Loaded read={executions} what="the executions">
        {({ executions: rows, partial }) => (
          <>
            <p role="status" className="count">
              {rows.length === 0
                ? 'No executions match.'
                : `${rows.length === LIMIT ? `The newest ${LIMIT}` : rows.length} execution${rows.length === 1 ? '' : 's'}${rows.some((row) => row.status === 'RUNNING') ? ', some still running (the list follows them)' : ''}`}
            </p>
            {partial ? (
              <p className="muted">
                The list may miss executions of {filter.company}: Temporal cannot search for a company name with a
                quote, so flowhook reads the executions of companies whose names start like it and stops after a bound.
                Narrow the filter (a time range, a flow) to see the rest.
              </p>
            ) : null}
            {rows.length > 0 ? (
              <DataTable
                caption={`${title}, newest first`}
                className="executions"
                columns={['Execution', 'Flow', 'Status', 'Outcome', 'Caller', 'Started', 'Took']}
              >
                {rows.map((row) => (
                  <ExecutionRow key={row.executionId} row={row} />
                ))}
              </DataTable>
            ) : null}
          </>
        )}
      </Loaded>
    </Page>
  );
}

function ExecutionRow({ row }: { row: ExecutionSummary }) {
  return (
    <tr>
      <th scope="row">
        <Link to={`/executions/${encodeURIComponent(row.executionId)}`}>{row.executionId}</Link>
      </th>
      <td>
        {row.flowName || row.activity}
        {row.flowVersion ? <span className="muted"> v{row.flowVersion}</span> : null}
      </td>
      <td>
        <span className={`status status-${row.status.toLowerCase()}`}>
          {row.status.toLowerCase().replace('_', ' ')}
        </span>
      </td>
      <td>{row.outcome || '—'}</td>
      <td>{row.caller ? <code>{row.caller}</code> : '—'}</td>
      <td>{timeText(row.startedAt)}</td>
      <td>{row.closedAt ? durationText(between(row.startedAt, row.closedAt)) : 'running'}</td>
    </tr>
  );
}
