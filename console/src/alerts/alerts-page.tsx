// A company's alert rules: what fires each, how many in how long, the
// connection it notifies, whether it fires now and when it last said so.
// Admins add and edit rules (alert-form.tsx), delete them, and send a test
// message through a rule's connection (AlertService.TestAlert) to see it
// arrive.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { AlertService, AlertState, type Alert } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { useReadAgain } from '../rpc/read-again.ts';
import { messageOf } from '../rpc/transport.ts';
import { mayIn, useSession } from '../session/session.tsx';
import { RowButton } from '../ui/action-buttons.tsx';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { Page } from '../ui/page.tsx';
import { QueryTable } from '../ui/query-table.tsx';
import { timeText } from '../executions/format.ts';
import { AlertForm } from './alert-form.tsx';
import { stateText, thresholdText, whenText } from './alert-text.ts';
import '../executions/operations.css';

type Editing = { mode: 'new' } | { mode: 'edit'; alert: Alert } | { mode: 'delete'; alert: Alert };

export default function AlertsPage() {
  const { company = '' } = useParams();
  const { person } = useSession();
  const readAgain = useReadAgain();
  const alerts = useQuery(AlertService.method.listAlerts, { company });
  const test = useMutation(AlertService.method.testAlert);
  const [editing, setEditing] = useState<Editing>();
  const [notice, setNotice] = useState('');
  const [problem, setProblem] = useState('');
  const admin = mayIn(person, company, 'admin');
  const done = (message: string) => {
    setEditing(undefined);
    setProblem('');
    setNotice(message);
    void readAgain([AlertService]);
  };
  const sendTest = (alert: Alert) => {
    const name = alert.rule?.name ?? '';
    setNotice('');
    setProblem('');
    test.mutate(
      { company, name },
      {
        onSuccess: (answer) => setNotice(`Sent a test message for ${name}: ${answer.summary}`),
        onError: (error) => setProblem(`The test message for ${name} was not sent: ${messageOf(error)}`),
      },
    );
  };
  return (
    <Page
      id="alerts-title"
      title={`Alerts of ${company}`}
      actions={
        admin ? (
          <button type="button" onClick={() => setEditing({ mode: 'new' })}>
            New alert
          </button>
        ) : null
      }
    >
      <p className="muted">
        Each alert notifies its connection once when it fires and once when it resolves. Alert channels are{' '}
        <Link to={`/connections/${encodeURIComponent(company)}`}>connections</Link> of type slack, teams, webhook or
        smtp{admin ? '' : '; admins change alerts'}.
      </p>
      <p role="status" className="notice done">
        {notice}
      </p>
      {problem ? (
        <p role="alert" className="problem">
          {problem}
        </p>
      ) : null}
      <QueryTable
        read={alerts}
        what="the alerts"
        rowsOf={(data) => data.alerts}
        empty={<p>No alerts in {company} yet.</p>}
        caption={`Alerts of ${company}`}
        className="alerts"
        columns={['Name', 'When', 'Threshold', 'Connection', 'State', 'Last notified', admin && 'Actions']}
      >
        {(alert) => {
          const name = alert.rule?.name ?? '';
          return (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{whenText(alert)}</td>
              <td>{thresholdText(alert)}</td>
              <td>{alert.rule?.connection}</td>
              <td>
                {alert.state === AlertState.FIRING ? <strong>{stateText(alert.state)}</strong> : stateText(alert.state)}
              </td>
              <td>{alert.lastNotifiedAt ? timeText(alert.lastNotifiedAt) : 'never'}</td>
              {admin ? (
                <td className="row-actions">
                  <RowButton label={`Send test for ${name}`} onClick={() => sendTest(alert)}>
                    Send test
                  </RowButton>
                  <RowButton label={`Edit ${name}`} onClick={() => setEditing({ mode: 'edit', alert })}>
                    Edit
                  </RowButton>
                  <RowButton label={`Delete ${name}`} onClick={() => setEditing({ mode: 'delete', alert })}>
                    Delete
                  </RowButton>
                </td>
              ) : null}
            </tr>
          );
        }}
      </QueryTable>
      {editing?.mode === 'new' || editing?.mode === 'edit' ? (
        <AlertForm
          company={company}
          existing={editing.mode === 'edit' ? editing.alert : undefined}
          onCancel={() => setEditing(undefined)}
          onDone={(saved) => done(`Saved alert ${saved.rule?.name}.`)}
        />
      ) : null}
      {editing?.mode === 'delete' ? (
        <DeleteAlertDialog
          company={company}
          alert={editing.alert}
          onCancel={() => setEditing(undefined)}
          onDone={() => done(`Deleted alert ${editing.alert.rule?.name}.`)}
        />
      ) : null}
    </Page>
  );
}

function DeleteAlertDialog({
  company,
  alert,
  onCancel,
  onDone,
}: {
  company: string;
  alert: Alert;
  onCancel(): void;
  onDone(): void;
}) {
  const remove = useMutation(AlertService.method.deleteAlert);
  const name = alert.rule?.name ?? '';
  return (
    <ModalDialog title={`Delete alert ${name}?`} onClose={onCancel}>
      <p>
        It stops notifying {alert.rule?.connection}
        {alert.state === AlertState.FIRING ? ', although it fires now' : ''}.
      </p>
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
          disabled={remove.isPending}
          onClick={() => remove.mutate({ company, name }, { onSuccess: onDone })}
        >
          Delete alert
        </button>
      </div>
    </ModalDialog>
  );
}
