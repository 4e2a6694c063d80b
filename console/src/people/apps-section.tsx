// OAuth applications: identity-provider clients (issuer and client id) that
// call the endpoint with bearer tokens. Registered disabled and without
// consent unless said otherwise; enabled, consented and given FLOW INTEGR.
// per company here.
import { useState } from 'react';
import { createClient } from '@connectrpc/connect';
import { useQuery } from '@connectrpc/connect-query';
import { AppAdminService, AppState, type App } from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { transport } from '../rpc/transport.ts';
import { ActionButton, ConfirmButton } from '../ui/action-buttons.tsx';
import { CheckboxField, TextField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { scopeText } from './company-scope.tsx';
import { GrantsDialog } from './grants-dialog.tsx';

const apps = createClient(AppAdminService, transport);

/** The one set an application can call with (FLOW ALL needs a user licence; SUPER is never an application's). */
const APP_PERMISSION_SETS = ['FLOW INTEGR.'] as const;

/** An application is its issuer and client id: the same client id may be registered under two issuers. */
const keyOf = (app: App) => `${app.issuer} ${app.clientId}`;

export function AppsSection({ actions, mayChange }: { actions: PageActions; mayChange: boolean }) {
  const list = useQuery(AppAdminService.method.listApps, {});
  const [setsOf, setSetsOf] = useState<string>();
  const shownSets = list.data?.apps.find((app) => keyOf(app) === setsOf);
  return (
    <section aria-labelledby="apps-title" className="people-section">
      <h2 id="apps-title">OAuth applications</h2>
      <p className="muted">Clients of your identity provider that call the endpoint with bearer tokens, known by issuer and client id.</p>
      {mayChange ? <RegisterApp actions={actions} /> : null}
      {list.isPending ? <Loading what="the applications" /> : null}
      {list.isError ? <LoadProblem what="the applications" error={list.error} /> : null}
      {list.data && list.data.apps.length === 0 ? <p>No applications registered yet.</p> : null}
      {list.data && list.data.apps.length > 0 ? (
        <table>
          <caption className="visually-hidden">OAuth applications</caption>
          <thead>
            <tr>
              <th scope="col">Client id</th>
              <th scope="col">Issuer</th>
              <th scope="col">Description</th>
              <th scope="col">State</th>
              <th scope="col">Consent</th>
              <th scope="col">Permission sets</th>
              {mayChange ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {list.data.apps.map((app) => (
              <AppRow key={keyOf(app)} app={app} actions={actions} mayChange={mayChange} onSets={() => setSetsOf(keyOf(app))} />
            ))}
          </tbody>
        </table>
      ) : null}
      {shownSets ? (
        <GrantsDialog
          title={`Permission sets of ${shownSets.clientId}`}
          grants={shownSets.permissionSets}
          permissionSets={APP_PERMISSION_SETS}
          grant={async (scope, permissionSet) => {
            await apps.registerApp({ clientId: shownSets.clientId, issuer: shownSets.issuer, ...scope, permissionSet });
            return { done: `Assigned ${scopeText(permissionSet, scope.company)}.` };
          }}
          onClose={() => setSetsOf(undefined)}
        />
      ) : null}
    </section>
  );
}

function AppRow({ app, actions, mayChange, onSets }: { app: App; actions: PageActions; mayChange: boolean; onSets(): void }) {
  const enabled = app.state === AppState.ENABLED;
  return (
    <tr>
      <th scope="row">{app.clientId}</th>
      <td>
        <code>{app.issuer || '(none)'}</code>
        {app.tenantId ? ` (tenant ${app.tenantId})` : ''}
      </td>
      <td>{app.description || '—'}</td>
      <td>{enabled ? 'Enabled' : 'Disabled'}</td>
      <td>{app.consentGranted ? 'Granted' : 'Not granted'}</td>
      <td>{app.permissionSets.length === 0 ? 'none' : app.permissionSets.map((set) => scopeText(set.permissionSet, set.company)).join(', ')}</td>
      {mayChange ? (
        <td className="row-actions">
          <button type="button" className="secondary small" onClick={onSets}>
            Permission sets
          </button>
          <ActionButton
            actions={actions}
            run={async () => {
              await apps.setAppState({ clientId: app.clientId, issuer: app.issuer, state: enabled ? AppState.DISABLED : AppState.ENABLED });
              return { done: `${app.clientId} is ${enabled ? 'disabled: its tokens are refused' : 'enabled'}.` };
            }}
          >
            {enabled ? 'Disable' : 'Enable'}
          </ActionButton>
          {app.consentGranted ? (
            <ConfirmButton
              actions={actions}
              danger
              title="Revoke consent?"
              body={
                <>
                  The next call with a token of <code>{app.clientId}</code> is refused. Its permission sets and state stay; granting consent again restores it.
                </>
              }
              action="Revoke consent"
              run={async () => {
                await apps.revokeAppConsent({ clientId: app.clientId, issuer: app.issuer });
                return { done: `Consent of ${app.clientId} revoked.` };
              }}
            >
              Revoke consent
            </ConfirmButton>
          ) : (
            <ActionButton
              actions={actions}
              run={async () => {
                await apps.registerApp({ clientId: app.clientId, issuer: app.issuer, consentGranted: true });
                return { done: `Consent of ${app.clientId} granted.` };
              }}
            >
              Grant consent
            </ActionButton>
          )}
        </td>
      ) : null}
    </tr>
  );
}

function RegisterApp({ actions }: { actions: PageActions }) {
  const [clientId, setClientId] = useState('');
  const [issuer, setIssuer] = useState('');
  const [tenantId, setTenantId] = useState('');
  const [description, setDescription] = useState('');
  const [consent, setConsent] = useState(false);
  const [enable, setEnable] = useState(false);
  return (
    <form
      className="inline-form"
      aria-label="Register an application"
      onSubmit={(event) => {
        event.preventDefault();
        void actions
          .run(async () => {
            const answer = await apps.registerApp({
              clientId,
              issuer,
              tenantId,
              description,
              consentGranted: consent,
              state: enable ? AppState.ENABLED : AppState.DISABLED,
            });
            return { done: `${answer.created ? 'Registered' : 'Updated'} application ${clientId}. Give it a permission set to let it call.` };
          })
          .then((registered) => registered && setClientId(''));
      }}
    >
      <TextField label="Client id" value={clientId} onChange={(event) => setClientId(event.target.value)} required autoComplete="off" />
      <TextField label="Issuer" type="url" value={issuer} onChange={(event) => setIssuer(event.target.value)} required placeholder="https://login.example.com/" />
      <TextField label="Tenant (optional)" value={tenantId} onChange={(event) => setTenantId(event.target.value)} hint="Empty: tokens of any tenant." />
      <TextField label="Description" value={description} onChange={(event) => setDescription(event.target.value)} />
      <CheckboxField label="Consent granted" checked={consent} onChange={(event) => setConsent(event.target.checked)} />
      <CheckboxField label="Enabled" checked={enable} onChange={(event) => setEnable(event.target.checked)} />
      <button type="submit">Register application</button>
    </form>
  );
}
