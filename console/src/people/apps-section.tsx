// OAuth applications: identity-provider clients (issuer and client id) that
// call the endpoint with bearer tokens. Registered disabled and without
// consent unless said otherwise; enabled, consented and given FLOW INTEGR.
// per company here.
import { useState } from 'react';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { AppAdminService, AppState, type App } from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { ActionButton, ActionForm, ConfirmButton, RowButton } from '../ui/action-buttons.tsx';
import { CheckboxField, TextField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import type { SectionProps } from '../ui/page.tsx';
import { TableSection } from '../ui/table-section.tsx';
import { scopeText } from './company-scope.tsx';
import { GrantsDialog } from './grants-dialog.tsx';

/** The one set an application can call with (FLOW ALL needs a user licence; SUPER is never an application's). */
const APP_PERMISSION_SETS = ['FLOW INTEGR.'] as const;

/** An application is its issuer and client id: the same client id may be registered under two issuers. */
const keyOf = (app: App) => `${app.issuer} ${app.clientId}`;

export function AppsSection(section: SectionProps) {
  const list = useQuery(AppAdminService.method.listApps, {});
  const register = useMutation(AppAdminService.method.registerApp);
  const [setsOf, setSetsOf] = useState<string>();
  const shownSets = list.data?.apps.find((app) => keyOf(app) === setsOf);
  return (
    <TableSection
      id="apps-title"
      title="OAuth applications"
      intro="Clients of your identity provider that call the endpoint with bearer tokens, known by issuer and client id."
      form={section.mayChange ? <RegisterApp actions={section.actions} /> : null}
      read={list}
      what="the applications"
      rowsOf={(data) => data.apps}
      empty={<p>No applications registered yet.</p>}
      columns={[
        'Client id',
        'Issuer',
        'Description',
        'State',
        'Consent',
        'Permission sets',
        section.mayChange && 'Actions',
      ]}
      after={
        shownSets ? (
          <GrantsDialog
            title={`Permission sets of ${shownSets.clientId}`}
            grants={shownSets.permissionSets}
            permissionSets={APP_PERMISSION_SETS}
            changes={[AppAdminService.method.listApps]}
            grant={async (scope, permissionSet) => {
              await register.mutateAsync({
                clientId: shownSets.clientId,
                issuer: shownSets.issuer,
                ...scope,
                permissionSet,
              });
              return { done: `Assigned ${scopeText(permissionSet, scope.company)}.` };
            }}
            onClose={() => setSetsOf(undefined)}
          />
        ) : null
      }
    >
      {(app) => <AppRow key={keyOf(app)} app={app} {...section} onSets={() => setSetsOf(keyOf(app))} />}
    </TableSection>
  );
}

function AppRow({ app, actions, mayChange, onSets }: { app: App; onSets(): void } & SectionProps) {
  const setState = useMutation(AppAdminService.method.setAppState);
  const revokeConsent = useMutation(AppAdminService.method.revokeAppConsent);
  const register = useMutation(AppAdminService.method.registerApp);
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
      <td>
        {app.permissionSets.length === 0
          ? 'none'
          : app.permissionSets.map((set) => scopeText(set.permissionSet, set.company)).join(', ')}
      </td>
      {mayChange ? (
        <td className="row-actions">
          <RowButton onClick={onSets}>Permission sets</RowButton>
          <ActionButton
            actions={actions}
            run={async () => {
              await setState.mutateAsync({
                clientId: app.clientId,
                issuer: app.issuer,
                state: enabled ? AppState.DISABLED : AppState.ENABLED,
              });
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
                  The next call with a token of <code>{app.clientId}</code> is refused. Its permission sets and state
                  stay; granting consent again restores it.
                </>
              }
              action="Revoke consent"
              run={async () => {
                await revokeConsent.mutateAsync({ clientId: app.clientId, issuer: app.issuer });
                return { done: `Consent of ${app.clientId} revoked.` };
              }}
            >
              Revoke consent
            </ConfirmButton>
          ) : (
            <ActionButton
              actions={actions}
              run={async () => {
                await register.mutateAsync({ clientId: app.clientId, issuer: app.issuer, consentGranted: true });
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
  const register = useMutation(AppAdminService.method.registerApp);
  const [clientId, setClientId] = useState('');
  const [issuer, setIssuer] = useState('');
  const [tenantId, setTenantId] = useState('');
  const [description, setDescription] = useState('');
  const [consent, setConsent] = useState(false);
  const [enable, setEnable] = useState(false);
  const registerApp = async () => {
    const answer = await register.mutateAsync({
      clientId,
      issuer,
      tenantId,
      description,
      consentGranted: consent,
      state: enable ? AppState.ENABLED : AppState.DISABLED,
    });
    return {
      done: `${answer.created ? 'Registered' : 'Updated'} application ${clientId}. Give it a permission set to let it call.`,
    };
  };
  return (
    <ActionForm
      className="inline-form"
      aria-label="Register an application"
      actions={actions}
      run={registerApp}
      onDone={() => setClientId('')}
    >
      <TextField label="Client id" value={clientId} onValue={setClientId} required autoComplete="off" />
      <TextField
        label="Issuer"
        type="url"
        value={issuer}
        onValue={setIssuer}
        required
        placeholder="https://login.example.com/"
      />
      <TextField label="Tenant (optional)" value={tenantId} onValue={setTenantId} hint="Empty: tokens of any tenant." />
      <TextField label="Description" value={description} onValue={setDescription} />
      <CheckboxField label="Consent granted" checked={consent} onChecked={setConsent} />
      <CheckboxField label="Enabled" checked={enable} onChecked={setEnable} />
      <button type="submit">Register application</button>
    </ActionForm>
  );
}
