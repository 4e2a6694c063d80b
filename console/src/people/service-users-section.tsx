// Service users: the Basic callers of the webhook endpoint (a name and a web
// service access key). New ones get their key in a dialog, once; a new key
// replaces it (the old one stops working at once); grants give permission
// sets per company; disabling keeps everything but lets no call through.
import { useState } from 'react';
import { createClient } from '@connectrpc/connect';
import { useQuery } from '@connectrpc/connect-query';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { UserAdminService, type User } from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { transport } from '../rpc/transport.ts';
import { ActionButton, ConfirmButton } from '../ui/action-buttons.tsx';
import { SelectField, TextField } from '../ui/field.tsx';
import type { Outcome, PageActions } from '../ui/page-actions.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { CompanyScopeField, scopeOf, scopeText, useFirstCompany } from './company-scope.tsx';
import { GrantsDialog } from './grants-dialog.tsx';

const users = createClient(UserAdminService, transport);
const flowAdmin = createClient(FlowAdminService, transport);

/** The sets a service user can call with (the engine refuses others, saying which to use). */
const USER_PERMISSION_SETS = ['FLOW ALL', 'SUPER'] as const;

function accessKeyReveal(name: string, accessKey: string): Outcome['reveal'] {
  return {
    title: 'Access key',
    what: (
      <>
        The web service access key of service user <code>{name}</code>.
      </>
    ),
    value: accessKey,
    use: (
      <>
        flowhook keeps only its hash. Callers send it as the password of HTTP Basic authentication, with <code>{name}</code> as the user name.
      </>
    ),
  };
}

export function ServiceUsersSection({ actions, mayChange }: { actions: PageActions; mayChange: boolean }) {
  const list = useQuery(UserAdminService.method.listUsers, {});
  const [grantsOf, setGrantsOf] = useState<string>();
  const shownGrants = list.data?.users.find((user) => user.name === grantsOf);
  return (
    <section aria-labelledby="users-title" className="people-section">
      <h2 id="users-title">Service users</h2>
      <p className="muted">Callers of the webhook endpoint with HTTP Basic authentication: a name and a web service access key.</p>
      {mayChange ? <NewServiceUser actions={actions} /> : null}
      {list.isPending ? <Loading what="the service users" /> : null}
      {list.isError ? <LoadProblem what="the service users" error={list.error} /> : null}
      {list.data && list.data.users.length === 0 ? <p>No service users yet.</p> : null}
      {list.data && list.data.users.length > 0 ? (
        <table>
          <caption className="visually-hidden">Service users</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Permission sets</th>
              <th scope="col">Access key</th>
              <th scope="col">Created</th>
              {mayChange ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {list.data.users.map((user) => (
              <UserRow key={user.name} user={user} actions={actions} mayChange={mayChange} onGrants={() => setGrantsOf(user.name)} />
            ))}
          </tbody>
        </table>
      ) : null}
      {shownGrants ? (
        <GrantsDialog
          title={`Permission sets of ${shownGrants.name}`}
          grants={shownGrants.permissionSets}
          permissionSets={USER_PERMISSION_SETS}
          grant={async (scope, permissionSet) => {
            const answer = await users.grantUserPermission({ name: shownGrants.name, ...scope, permissionSet });
            return {
              done: answer.alreadyGranted ? `${shownGrants.name} already had ${scopeText(permissionSet, scope.company)}.` : `Granted ${scopeText(permissionSet, scope.company)}.`,
            };
          }}
          revoke={async (held) => {
            const answer = await users.revokeUserPermission({ name: shownGrants.name, company: held.company, permissionSet: held.permissionSet });
            return { done: [`Revoked ${scopeText(held.permissionSet, held.company)}.`, ...answer.warnings].join(' ') };
          }}
          onClose={() => setGrantsOf(undefined)}
        />
      ) : null}
    </section>
  );
}

function UserRow({ user, actions, mayChange, onGrants }: { user: User; actions: PageActions; mayChange: boolean; onGrants(): void }) {
  const expires = user.accessKeyExpiresAt ? timestampDate(user.accessKeyExpiresAt).toLocaleString() : undefined;
  return (
    <tr>
      <th scope="row">{user.name}</th>
      <td>{user.enabled ? 'Enabled' : 'Disabled'}</td>
      <td>{user.permissionSets.length === 0 ? 'none' : user.permissionSets.map((set) => scopeText(set.permissionSet, set.company)).join(', ')}</td>
      <td>{user.accessKeyExpired ? `expired ${expires}` : expires ? `expires ${expires}` : 'no expiry'}</td>
      <td>{user.createdAt ? timestampDate(user.createdAt).toLocaleString() : '—'}</td>
      {mayChange ? (
        <td className="row-actions">
          <button type="button" className="secondary small" onClick={onGrants}>
            Permission sets
          </button>
          <ConfirmButton
            actions={actions}
            title="A new access key?"
            body={
              <>
                <code>{user.name}</code> gets a new access key, shown once, and <strong>the current key stops working at once</strong>: calls that still send it get 401
                Unauthorized.
              </>
            }
            action="New key"
            run={async () => {
              const answer = await users.regenerateUserKey({ name: user.name });
              return { done: `${user.name} has a new access key; the old one no longer works.`, reveal: accessKeyReveal(user.name, answer.accessKey) };
            }}
          >
            New key
          </ConfirmButton>
          <ActionButton
            actions={actions}
            run={async () => {
              await users.setUserState({ name: user.name, enabled: !user.enabled });
              return { done: `${user.name} is ${user.enabled ? 'disabled: its calls are refused' : 'enabled'}.` };
            }}
          >
            {user.enabled ? 'Disable' : 'Enable'}
          </ActionButton>
          <ConfirmButton
            actions={actions}
            danger
            title="Delete the service user?"
            body={
              <>
                <code>{user.name}</code>, its access key and its permission sets are deleted. Calls with its key are refused from now on.
              </>
            }
            action="Delete service user"
            run={async () => {
              await users.deleteUser({ name: user.name });
              return { done: `Service user ${user.name} deleted.` };
            }}
          >
            Delete
          </ConfirmButton>
        </td>
      ) : null}
    </tr>
  );
}

function NewServiceUser({ actions }: { actions: PageActions }) {
  const firstCompany = useFirstCompany();
  const [name, setName] = useState('');
  const [company, setCompany] = useState<string>();
  const [permissionSet, setPermissionSet] = useState<string>(USER_PERMISSION_SETS[0]);
  const [expires, setExpires] = useState('');
  const scope = scopeOf(company ?? firstCompany);
  return (
    <form
      className="inline-form"
      aria-label="New service user"
      onSubmit={(event) => {
        event.preventDefault();
        void actions
          .run(async () => {
            const answer = await flowAdmin.createUser({
              name,
              ...scope,
              permissionSet,
              accessKeyExpiresAt: expires ? timestampFromDate(new Date(expires)) : undefined,
            });
            return { done: `Service user ${answer.name} created with ${scopeText(permissionSet, scope.company)}.`, reveal: accessKeyReveal(answer.name, answer.accessKey) };
          })
          .then((created) => created && setName(''));
      }}
    >
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} required autoComplete="off" />
      <CompanyScopeField label="Company" value={company ?? firstCompany} onChange={setCompany} />
      <SelectField label="Permission set" value={permissionSet} onChange={(event) => setPermissionSet(event.target.value)}>
        {USER_PERMISSION_SETS.map((set) => (
          <option key={set}>{set}</option>
        ))}
      </SelectField>
      <TextField label="Key expires (optional)" type="datetime-local" value={expires} onChange={(event) => setExpires(event.target.value)} />
      <button type="submit">Create service user</button>
    </form>
  );
}
