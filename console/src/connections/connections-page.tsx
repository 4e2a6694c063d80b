// A company's connections: the named credentials httpRequest steps use. The
// list shows everything but the secret (the engine never sends one) and the
// published flows that use each; admins create, replace (the secret typed
// again: connection-form.tsx) and delete them — a connection flows use only
// with a second, explicit confirmation, after the dialog names those flows.
// ?name=… (the execution page's link to a failing step's connection) marks
// that connection's row.
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import {
  ConnectionAdminService,
  type Connection,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { useReadAgain } from '../rpc/read-again.ts';
import { messageOf } from '../rpc/transport.ts';
import { mayIn, useSession } from '../session/session.tsx';
import { RowButton } from '../ui/action-buttons.tsx';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { Page } from '../ui/page.tsx';
import { QueryTable } from '../ui/query-table.tsx';
import { timeText } from '../executions/format.ts';
import { ConnectionForm } from './connection-form.tsx';
import '../executions/operations.css';

type Editing =
  { mode: 'new' } | { mode: 'replace'; connection: Connection } | { mode: 'delete'; connection: Connection };

export default function ConnectionsPage() {
  const { company = '' } = useParams();
  const [search] = useSearchParams();
  const marked = search.get('name') ?? '';
  const { person } = useSession();
  const readAgain = useReadAgain();
  const connections = useQuery(ConnectionAdminService.method.listConnections, { company });
  const kinds = useQuery(ConnectionAdminService.method.listConnectionKinds, {}, { staleTime: Infinity });
  const [editing, setEditing] = useState<Editing>();
  const [notice, setNotice] = useState('');
  const admin = mayIn(person, company, 'admin');
  const done = (message: string) => {
    setEditing(undefined);
    setNotice(message);
    // The connections (their list, the try panel's callers); the flows that use one are what they were.
    void readAgain([ConnectionAdminService]);
  };
  return (
    <Page
      id="connections-title"
      title={`Connections of ${company}`}
      actions={
        admin ? (
          <button type="button" onClick={() => setEditing({ mode: 'new' })}>
            New connection
          </button>
        ) : null
      }
    >
      <p className="muted">
        Credentials httpRequest steps call with, by name. A secret is stored encrypted and never shown again
        {admin ? '' : '; admins change connections'}.
      </p>
      <p role="status" className="notice done">
        {notice}
      </p>
      <QueryTable
        read={connections}
        what="the connections"
        rowsOf={(data) => data.connections}
        empty={<p>No connections in {company} yet.</p>}
        caption={`Connections of ${company}`}
        className="connections"
        columns={['Name', 'Type', 'Where to', 'Used by', 'Changed', admin && 'Actions']}
      >
        {(connection) => (
          <tr
            key={connection.name}
            className={connection.name === marked ? 'marked' : undefined}
            aria-current={connection.name === marked ? 'true' : undefined}
          >
            <th scope="row">{connection.name}</th>
            <td>{kinds.data?.kinds.find((kind) => kind.type === connection.settings?.type)?.name ?? '…'}</td>
            <td>
              <code>{connection.settings?.baseUrl || connection.settings?.allowedHosts.join(', ')}</code>
            </td>
            <td>
              <UsedBy company={company} flows={connection.usedByFlows} />
            </td>
            <td>
              {timeText(connection.updatedAt)} <span className="muted">(version {connection.version})</span>
            </td>
            {admin ? (
              <td className="row-actions">
                <RowButton
                  label={`Replace ${connection.name}`}
                  onClick={() => setEditing({ mode: 'replace', connection })}
                >
                  Replace
                </RowButton>
                <RowButton
                  label={`Delete ${connection.name}`}
                  onClick={() => setEditing({ mode: 'delete', connection })}
                >
                  Delete
                </RowButton>
              </td>
            ) : null}
          </tr>
        )}
      </QueryTable>
      {editing?.mode === 'new' || editing?.mode === 'replace' ? (
        <ConnectionForm
          company={company}
          existing={editing.mode === 'replace' ? editing.connection : undefined}
          onCancel={() => setEditing(undefined)}
          onDone={(saved) => done(`Saved connection ${saved.name} (version ${saved.version}).`)}
        />
      ) : null}
      {editing?.mode === 'delete' ? (
        <DeleteConnectionDialog
          company={company}
          connection={editing.connection}
          onCancel={() => setEditing(undefined)}
          onDone={() => done(`Deleted connection ${editing.connection.name}.`)}
        />
      ) : null}
    </Page>
  );
}

function UsedBy({ company, flows }: { company: string; flows: string[] }) {
  if (flows.length === 0) return <span className="muted">no published flow</span>;
  return (
    <ul className="plain">
      {flows.map((flow) => (
        <li key={flow}>
          <Link to={`/flows/${encodeURIComponent(company)}/${encodeURIComponent(flow)}`}>{flow}</Link>
        </li>
      ))}
    </ul>
  );
}

function DeleteConnectionDialog({
  company,
  connection,
  onCancel,
  onDone,
}: {
  company: string;
  connection: Connection;
  onCancel(): void;
  onDone(): void;
}) {
  const remove = useMutation(ConnectionAdminService.method.deleteConnection);
  const [understood, setUnderstood] = useState(false);
  const used = connection.usedByFlows.length > 0;
  return (
    <ModalDialog title={`Delete connection ${connection.name}?`} onClose={onCancel}>
      {used ? (
        <>
          <p>
            <strong>
              {connection.usedByFlows.length} published flow{connection.usedByFlows.length === 1 ? ' uses' : 's use'} it
            </strong>
            ; their httpRequest steps fail from the next execution on:
          </p>
          <UsedBy company={company} flows={connection.usedByFlows} />
          <label className="inline-check">
            <input type="checkbox" checked={understood} onChange={(event) => setUnderstood(event.target.checked)} />{' '}
            Delete it all the same
          </label>
        </>
      ) : (
        <p>No published flow uses it. Its secret is deleted with it.</p>
      )}
      {remove.isError ? (
        <p role="alert" className="problem">
          Not deleted: {messageOf(remove.error)}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="secondary" data-autofocus onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          disabled={(used && !understood) || remove.isPending}
          onClick={() => remove.mutate({ company, name: connection.name, force: used }, { onSuccess: onDone })}
        >
          Delete connection
        </button>
      </div>
    </ModalDialog>
  );
}
