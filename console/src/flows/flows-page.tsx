// A company's flows: name, activity, description, response mode, published
// version and the last execution's outcome, with a search over name, activity
// and description, and the way to a new flow.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService, type FlowSummary } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { ResponseMode } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { mayIn, useSession } from '../session/session.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { Loaded } from '../ui/states.tsx';
import { LastOutcome } from './last-outcome.tsx';

export function FlowsPage() {
  const { company = '' } = useParams();
  const navigate = useNavigate();
  const { person } = useSession();
  const [search, setSearch] = useState('');
  const flows = useQuery(FlowAdminService.method.listFlows, { company });
  const shown = (flows.data?.flows ?? []).filter((flow) => matches(flow, search));
  return (
    <Page
      id="flows-title"
      title={`Flows of ${company}`}
      actions={
        mayIn(person, company, 'editor') ? (
          <button type="button" onClick={() => void navigate(`/new-flow/${encodeURIComponent(company)}`)}>
            New flow
          </button>
        ) : null
      }
    >
      <div className="field search">
        <label htmlFor="flow-search">Search flows</label>
        <input
          id="flow-search"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          aria-describedby="flow-search-hint"
        />
        <p id="flow-search-hint" className="field-hint">
          By name, activity or description.
        </p>
      </div>
      <Loaded read={flows} what="the flows">
        {({ flows: all }) =>
          all.length === 0 ? (
            <p>No flows in {company} yet. Start one with New flow.</p>
          ) : (
            <>
              <p role="status" className="count">
                {shown.length === all.length
                  ? `${shown.length} flow${shown.length === 1 ? '' : 's'}`
                  : `${shown.length} of ${all.length} flows match`}
              </p>
              <DataTable
                caption={`Flows of ${company}`}
                className="flows"
                columns={['Name', 'Activity', 'Description', 'Response mode', 'Published', 'Last outcome']}
              >
                {shown.map((flow) => (
                  <FlowRow key={flow.name} company={company} flow={flow} />
                ))}
              </DataTable>
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

function FlowRow({ company, flow }: { company: string; flow: FlowSummary }) {
  return (
    <tr>
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
  );
}

function matches(flow: FlowSummary, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${flow.name} ${flow.activity} ${flow.description} ${flow.triggerDescription}`.toLowerCase();
  return words.every((word) => text.includes(word));
}
