// The audit log: every admin change — the console's with the person who made
// it — newest first, filtered by person, action, company and time, a page at
// a time (AuditService.ListAuditEvents and its page token). Reading it needs
// the admin role in the company filtered by, or in every company for all.
import { useState } from 'react';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { AuditService, type AuditEvent } from '../../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { useDebounced } from '../ui/use-debounced.ts';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { AuditFilters, useAuditFilter } from './audit-filters.tsx';

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
    <section aria-labelledby="audit-title">
      <div className="page-head">
        <h1 id="audit-title" tabIndex={-1}>
          Audit log
        </h1>
      </div>
      <AuditFilters filter={filter} onChange={onChange} />
      {events.isPending ? <Loading what="the audit log" /> : null}
      {events.isError ? <LoadProblem what="the audit log" error={events.error} /> : null}
      {events.data ? (
        <>
          <p role="status" className="count">
            {events.data.events.length === 0
              ? 'No events match.'
              : `${pages.length > 0 ? `Page ${pages.length + 1}: ` : ''}${events.data.events.length} event${events.data.events.length === 1 ? '' : 's'}${events.data.nextPageToken ? ', older ones on the next page' : ''}`}
          </p>
          {events.data.events.length > 0 ? <AuditTable events={events.data.events} /> : null}
          <div className="toolbar">
            <button type="button" className="secondary" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>
              Newer events
            </button>
            <button type="button" className="secondary" disabled={!events.data.nextPageToken} onClick={() => setPages([...pages, events.data.nextPageToken])}>
              Older events
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}

function AuditTable({ events }: { events: AuditEvent[] }) {
  return (
    <table className="audit">
      <caption className="visually-hidden">Audit events, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Person</th>
          <th scope="col">Action</th>
          <th scope="col">Company</th>
          <th scope="col">Target</th>
          <th scope="col">Outcome</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td>{event.at ? timestampDate(event.at).toLocaleString() : '—'}</td>
            <th scope="row">{event.person ? `${event.person}${event.person === event.account ? '' : ` (${event.account})`}` : `${event.account} (not in the console)`}</th>
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
        ))}
      </tbody>
    </table>
  );
}
