// One delivery: what arrived and how it was answered, its headers with every
// credential redacted, and — where the execution's payload would be shown (a
// flow without doNotLogPayload) — its body (DeliveryService.GetDelivery). An
// admin of the company replays an accepted call here, after a confirmation:
// it runs again as a new execution on the version published now, as its
// original caller (ReplayDelivery); for a doNotLogPayload flow only as a
// reveal, which the dialog says and the audit log records.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import {
  DeliveryService,
  type GetDeliveryResponse,
} from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { messageOf } from '../rpc/transport.ts';
import { mayIn, useSession } from '../session/session.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { DataTable } from '../ui/data-table.tsx';
import { Page } from '../ui/page.tsx';
import { Loaded } from '../ui/states.tsx';

export default function DeliveryPage() {
  const { company = '', id = '' } = useParams();
  const read = useQuery(DeliveryService.method.getDelivery, { id });
  return (
    <Page
      id="delivery-title"
      title="Delivery"
      actions={
        <Link className="button secondary-link" to={`/deliveries/${encodeURIComponent(company)}`}>
          All deliveries
        </Link>
      }
    >
      <Loaded read={read} what="the delivery">
        {(data) => <DeliveryDetails data={data} />}
      </Loaded>
    </Page>
  );
}

function DeliveryDetails({ data }: { data: GetDeliveryResponse }) {
  const delivery = data.delivery!;
  const facts: [string, string][] = [
    ['Received', delivery.receivedAt ? timestampDate(delivery.receivedAt).toLocaleString() : '—'],
    ['Route', delivery.route],
    ['Activity', delivery.activity || '—'],
    ['Caller', delivery.caller || '—'],
    ['Sender', delivery.sender || '—'],
    ['Outcome', delivery.count > 1 ? `${delivery.outcome} ×${delivery.count} (counted, not stored)` : delivery.outcome],
    ['Reason', delivery.reason || '—'],
    ['Status', String(delivery.status)],
    ['Answer', delivery.answer || '—'],
    ['Latency', delivery.count > 1 ? '—' : `${delivery.latencyMs} ms`],
    ['Request id', delivery.requestId || '—'],
  ];
  if (data.query) facts.push(['Query', data.query]);
  return (
    <>
      <dl className="facts card">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
        <div>
          <dt>Execution</dt>
          <dd>
            {delivery.executionId ? (
              <Link to={`/executions/${encodeURIComponent(delivery.executionId)}`}>{delivery.executionId}</Link>
            ) : (
              '—'
            )}
          </dd>
        </div>
      </dl>
      <ReplayButton data={data} />
      <h2>Headers</h2>
      <p className="muted">
        Credentials (Authorization, cookies, signatures, tokens, keys) are redacted before storing.
      </p>
      {data.headers.length > 0 ? (
        <DataTable caption="Headers as received, credentials redacted" columns={['Header', 'Value']}>
          {data.headers.map((header, index) => (
            <tr key={`${header.name}-${index}`}>
              <th scope="row">
                <code>{header.name}</code>
              </th>
              <td>
                <code>{header.value}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p>No headers kept.</p>
      )}
      <h2>Body</h2>
      {data.payloadWithheld ? (
        <p>Withheld: this flow does not log its payloads (doNotLogPayload).</p>
      ) : data.body ? (
        <pre className="payload" tabIndex={0} aria-label={`Body (${data.bodyEncoding})`}>
          {data.body}
        </pre>
      ) : (
        <p>None kept: only accepted calls to the endpoint and the provider routes keep their body.</p>
      )}
    </>
  );
}

function ReplayButton({ data }: { data: GetDeliveryResponse }) {
  const { person } = useSession();
  const delivery = data.delivery!;
  const [asking, setAsking] = useState(false);
  const replay = useMutation(DeliveryService.method.replayDelivery);
  const replayable =
    delivery.outcome === 'accepted' && (delivery.route === 'endpoint' || delivery.route === 'provider');
  if (!replayable || !mayIn(person, delivery.company, 'admin')) return null;
  const reveal = data.payloadWithheld;
  const started = replay.data;
  return (
    <div className="toolbar">
      <button type="button" disabled={replay.isPending} onClick={() => setAsking(true)}>
        Replay
      </button>
      {asking ? (
        <ConfirmDialog
          confirmation={{
            title: 'Replay this delivery?',
            action: reveal ? 'Reveal and replay' : 'Replay',
            body: (
              <>
                <p>
                  The stored call runs again as a new execution on the version of its flow published now, as its
                  original caller ({delivery.caller || 'the provider'}).
                  {delivery.route === 'provider' ? ' Its signature is not checked again.' : ''}
                </p>
                {reveal ? (
                  <p>
                    This flow does not log its payload: the replay takes it from the original execution, a reveal that
                    the audit log records.
                  </p>
                ) : null}
              </>
            ),
          }}
          busy={replay.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            replay.mutate({ id: delivery.id, company: delivery.company, reveal });
          }}
        />
      ) : null}
      <p role="status" className="inline-status">
        {started ? (
          <>
            Replayed as <Link to={`/executions/${encodeURIComponent(started.executionId)}`}>{started.executionId}</Link>{' '}
            (v{started.flowVersion})
          </>
        ) : null}
        {replay.isError ? <span className="problem">Not replayed: {messageOf(replay.error)}</span> : null}
      </p>
    </div>
  );
}
