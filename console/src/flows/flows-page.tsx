// A company's flows: name, activity, description, response mode, published
// version and the last execution's outcome, with a search over name, activity
// and description, and the way to a new flow.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService, type FlowSummary } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { ResponseMode } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { mayIn, useSession } from '../session/session.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { LastOutcome } from './last-outcome.tsx';

export function FlowsPage() {
  const { company = '' } = useParams();
  const navigate = useNavigate();
  const { person } = useSession();
  const [search, setSearch] = useState('');
  const flows = useQuery(FlowAdminService.method.listFlows, { company });
  const shown = (flows.data?.flows ?? []).filter((flow) => matches(flow, search));
  return (
    <section aria-labelledby="flows-title">
      <div className="page-head">
        <h1 id="flows-title" tabIndex={-1}>
          Flows of {company}
        </h1>
        {mayIn(person, company, 'editor') ? (
          <button type="button" onClick={() => void navigate(`/new-flow/${encodeURIComponent(company)}`)}>
            New flow
          </button>
        ) : null}
      </div>
      <div className="field search">
        <label htmlFor="flow-search">Search flows</label>
        <input id="flow-search" type="search" value={search} onChange={(event) => setSearch(event.target.value)} aria-describedby="flow-search-hint" />
        <p id="flow-search-hint" className="field-hint">
          By name, activity or description.
        </p>
      </div>
      {flows.isPending ? <Loading what="the flows" /> : null}
      {flows.isError ? <LoadProblem what="the flows" error={flows.error} /> : null}
      {flows.data && flows.data.flows.length === 0 ? <p>No flows in {company} yet. Start one with New flow.</p> : null}
      {flows.data && flows.data.flows.length > 0 ? (
        <>
          <p role="status" className="count">
            {shown.length === flows.data.flows.length ? `${shown.length} flow${shown.length === 1 ? '' : 's'}` : `${shown.length} of ${flows.data.flows.length} flows match`}
          </p>
          <table className="flows">
            <caption className="visually-hidden">Flows of {company}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Activity</th>
                <th scope="col">Description</th>
                <th scope="col">Response mode</th>
                <th scope="col">Published</th>
                <th scope="col">Last outcome</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((flow) => (
                <tr key={flow.name}>
                  <th scope="row">
                    <Link to={`/flows/${encodeURIComponent(company)}/${encodeURIComponent(flow.name)}`}>{flow.name}</Link>
                  </th>
                  <td>
                    <code>{flow.activity || '—'}</code>
                  </td>
                  <td>{flow.description || flow.triggerDescription || '—'}</td>
                  <td>{flow.responseMode === ResponseMode.WAIT_FOR_RESPONSE_STEP ? 'Wait for Response step' : 'Instant return'}</td>
                  <td>
                    {flow.publishedVersion > 0
                      ? `v${flow.publishedVersion}${flow.latestVersion > flow.publishedVersion ? ` (draft v${flow.latestVersion})` : ''}`
                      : `not published (draft v${flow.latestVersion})`}
                  </td>
                  <td>
                    <LastOutcome company={company} flowName={flow.name} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}

function matches(flow: FlowSummary, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${flow.name} ${flow.activity} ${flow.description} ${flow.triggerDescription}`.toLowerCase();
  return words.every((word) => text.includes(word));
}
