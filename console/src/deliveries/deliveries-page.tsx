// A company's delivery log: every request to its webhook endpoint, provider
// routes and callback routes, accepted or refused, newest first, filtered by
// outcome, reason, caller, activity and time, a page at a time
// (DeliveryService.ListDeliveries). Each accepted delivery links to the
// execution it started; each row to its details (delivery-page.tsx), where
// admins replay it. A row with a count stands for refused calls beyond the
// flood bound: counted, not stored one by one.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { DeliveryService, type Delivery } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { Loaded } from '../ui/states.tsx';
import { useDebounced } from '../ui/use-debounced.ts';
import { DeliveryFilters, useDeliveryFilter } from './delivery-filter.tsx';
import { PagingToolbar } from '../ui/paging-toolbar.tsx';

const PAGE_SIZE = 50;

export default function DeliveriesPage() {
  const { company = '' } = useParams();
  const [filter, change] = useDeliveryFilter();
  // Typing a name is not a query per key press.
  const typed = JSON.parse(useDebounced(JSON.stringify(filter), 300)) as typeof filter;
  // The tokens of the pages shown before this one: "Newer" goes back one.
  const [pages, setPages] = useState<string[]>([]);
  const timestamp = (value: string) => (value ? timestampFromDate(new Date(value)) : undefined);
  const deliveries = useQuery(DeliveryService.method.listDeliveries, {
    filter: {
      company,
      outcome: typed.outcome,
      reason: typed.reason.trim(),
      caller: typed.caller.trim(),
      activity: typed.activity.trim().toLowerCase(),
      since: timestamp(typed.since),
      until: timestamp(typed.until),
    },
    limit: PAGE_SIZE,
    pageToken: pages.at(-1) ?? '',
  });
  const onChange = (update: Parameters<typeof change>[0]) => {
    setPages([]);
    change(update);
  };
  return (
    <Page id="deliveries-title" title={`Deliveries of ${company}`}>
      <p className="muted">
        Every request to this company&apos;s webhook endpoint, provider routes and callback URLs, accepted or refused,
        with why. Credentials in headers are never kept.
      </p>
      <DeliveryFilters filter={filter} onChange={onChange} />
      <Loaded read={deliveries} what="the deliveries">
        {({ deliveries: shown, nextPageToken }) => (
          <>
            <p role="status" className="count">
              {shown.length === 0
                ? 'No deliveries match.'
                : `${pages.length > 0 ? `Page ${pages.length + 1}: ` : ''}${shown.length} row${shown.length === 1 ? '' : 's'}${nextPageToken ? ', older ones on the next page' : ''}`}
            </p>
            {shown.length > 0 ? (
              <DataTable
                caption="Deliveries, newest first"
                className="deliveries"
                columns={['Time', 'Route', 'Activity', 'Caller', 'Outcome', 'Reason', 'Status', 'Execution']}
              >
                {shown.map((delivery) => (
                  <DeliveryRow key={delivery.id} company={company} delivery={delivery} />
                ))}
              </DataTable>
            ) : null}
            <PagingToolbar noun="deliveries" pages={pages} nextPageToken={nextPageToken} setPages={setPages} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function DeliveryRow({ company, delivery }: { company: string; delivery: Delivery }) {
  const time = delivery.receivedAt ? timestampDate(delivery.receivedAt).toLocaleString() : '—';
  return (
    <tr>
      <th scope="row">
        <Link to={`/deliveries/${encodeURIComponent(company)}/${encodeURIComponent(delivery.id)}`}>{time}</Link>
      </th>
      <td>{delivery.route}</td>
      <td>{delivery.activity || '—'}</td>
      <td>{delivery.caller || (delivery.count > 1 ? `${delivery.sender || 'any sender'}` : '—')}</td>
      <td className={delivery.outcome === 'accepted' ? undefined : 'refused'}>
        {delivery.outcome}
        {delivery.count > 1 ? ` ×${delivery.count} (counted, not stored)` : ''}
      </td>
      <td>{delivery.reason ? <code>{delivery.reason}</code> : '—'}</td>
      <td>{delivery.status}</td>
      <td>
        {delivery.executionId ? (
          <Link to={`/executions/${encodeURIComponent(delivery.executionId)}`}>{delivery.executionId}</Link>
        ) : (
          '—'
        )}
      </td>
    </tr>
  );
}
