// The audit log: every admin change — the console's with the person who made
// it — newest first, filtered by person, action, company and time, a page at
// a time (AuditService.ListAuditEvents and its page token). Reading it needs
// the admin role in the company filtered by, or in every company for all.
import { useState } from 'react';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { AuditService, type AuditEvent } from '../../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { Loaded } from '../ui/states.tsx';
import { useDebounced } from '../ui/use-debounced.ts';
import { AuditFilters, useAuditFilter } from './audit-filters.tsx';
import { PagingToolbar } from '../ui/paging-toolbar.tsx';

const PAGE_SIZE = 50;

export default function AuditPage() {
  const [filter, change] = useAuditFilter();
  // Typing a name is not a query per key press.
  const typed = JSON.parse(useDebounced(JSON.stringify(filter), 300)) as typeof filter;
  // The tokens of the pages shown before this one: "Newer" goes back one.
  const [pages, setPages] = useState<string[]>([]);
  const timestamp = (value: string) => (value ? timestampFromDate(new Date(value)) : undefined);
  const events = useQuery(AuditService.method.listAuditEvents, {
    person: typed.person.trim(),
    action: typed.action.trim(),
    company: typed.company,
    since: timestamp(typed.since),
    until: timestamp(typed.until),
    limit: PAGE_SIZE,
    pageToken: pages.at(-1) ?? '',
  });
  const onChange = (update: Parameters<typeof change>[0]) => {
    setPages([]);
    change(update);
  };
  return (
    <Page id="audit-title" title="Audit log">
      <AuditFilters filter={filter} onChange={onChange} />
      <Loaded read={events} what="the audit log">
        {({ events: shown, nextPageToken }) => (
          <>
            <p role="status" className="count">
              {shown.length === 0
                ? 'No events match.'
                : `${pages.length > 0 ? `Page ${pages.length + 1}: ` : ''}${shown.length} event${shown.length === 1 ? '' : 's'}${nextPageToken ? ', older ones on the next page' : ''}`}
            </p>
            {shown.length > 0 ? (
              <DataTable
                caption="Audit events, newest first"
                className="audit"
                columns={['Time', 'Person', 'Action', 'Company', 'Target', 'Outcome', 'Details']}
              >
                {shown.map((event) => (
                  <AuditRow key={event.id} event={event} />
                ))}
              </DataTable>
            ) : null}
            <PagingToolbar noun="events" pages={pages} nextPageToken={nextPageToken} setPages={setPages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function AuditRow({ event }: { event: AuditEvent }) {
  return (
    <tr>
      <td>{event.at ? timestampDate(event.at).toLocaleString() : '—'}</td>
      <th scope="row">
        {event.person
          ? `${event.person}${event.person === event.account ? '' : ` (${event.account})`}`
          : `${event.account} (not in the console)`}
      </th>
      <td>
        <code>{event.action}</code>
      </td>
      <td>{event.company || '—'}</td>
      <td>{event.target || '—'}</td>
      <td className={event.outcome === 'ok' ? undefined : 'refused'}>{event.outcome.replaceAll('_', ' ')}</td>
      <td>
        <code className="details">{event.detailsJson === '{}' ? '' : event.detailsJson}</code>
      </td>
    </tr>
  );
}
