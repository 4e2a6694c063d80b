// Service users: the Basic callers of the webhook endpoint (a name and a web
// service access key). New ones get their key in a dialog, once; a new key
// replaces it (the old one stops working at once); grants give permission
// sets per company; disabling keeps everything but lets no call through.
import { useState } from 'react';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { UserAdminService, type User } from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { ActionButton, ActionForm, ConfirmButton, DeleteButton, RowButton } from '../ui/action-buttons.tsx';
import { SelectField, TextField } from '../ui/field.tsx';
import type { Outcome, PageActions } from '../ui/page-actions.tsx';
import type { SectionProps } from '../ui/page.tsx';
import { TableSection } from '../ui/table-section.tsx';
import { CompanyScopeField, scopeOf, scopeText, useFirstCompany } from './company-scope.tsx';
import { GrantsDialog } from './grants-dialog.tsx';

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
        flowhook keeps only its hash. Callers send it as the password of HTTP Basic authentication, with{' '}
        <code>{name}</code> as the user name.
      </>
    ),
  };
}

export function ServiceUsersSection(section: SectionProps) {
  const list = useQuery(UserAdminService.method.listUsers, {});
  const grant = useMutation(UserAdminService.method.grantUserPermission);
  const revoke = useMutation(UserAdminService.method.revokeUserPermission);
  const [grantsOf, setGrantsOf] = useState<string>();
  const shownGrants = list.data?.users.find((user) => user.name === grantsOf);
  return (
    <TableSection
      id="users-title"
      title="Service users"
      intro="Callers of the webhook endpoint with HTTP Basic authentication: a name and a web service access key."
      form={section.mayChange ? <NewServiceUser actions={section.actions} /> : null}
      read={list}
      rowsOf={(data) => data.users}
      empty={<p>No service users yet.</p>}
      columns={['Name', 'State', 'Permission sets', 'Access key', 'Created', section.mayChange && 'Actions']}
      after={
        shownGrants ? (
          <GrantsDialog
            title={`Permission sets of ${shownGrants.name}`}
            grants={shownGrants.permissionSets}
            permissionSets={USER_PERMISSION_SETS}
            changes={[UserAdminService.method.listUsers]}
            grant={async (scope, permissionSet) => {
              const answer = await grant.mutateAsync({ name: shownGrants.name, ...scope, permissionSet });
              return {
                done: answer.alreadyGranted
                  ? `${shownGrants.name} already had ${scopeText(permissionSet, scope.company)}.`
                  : `Granted ${scopeText(permissionSet, scope.company)}.`,
              };
            }}
            revoke={async (held) => {
              const answer = await revoke.mutateAsync({
                name: shownGrants.name,
                company: held.company,
                permissionSet: held.permissionSet,
              });
              return {
                done: [`Revoked ${scopeText(held.permissionSet, held.company)}.`, ...answer.warnings].join(' '),
              };
            }}
            onClose={() => setGrantsOf(undefined)}
          />
        ) : null
      }
    >
      {(user) => <UserRow key={user.name} user={user} {...section} onGrants={() => setGrantsOf(user.name)} />}
    </TableSection>
  );
}

function UserRow({ user, actions, mayChange, onGrants }: { user: User; onGrants(): void } & SectionProps) {
  const regenerateKey = useMutation(UserAdminService.method.regenerateUserKey);
  const setState = useMutation(UserAdminService.method.setUserState);
  const remove = useMutation(UserAdminService.method.deleteUser);
  const expires = user.accessKeyExpiresAt ? timestampDate(user.accessKeyExpiresAt).toLocaleString() : undefined;
  return (
    <tr>
      <th scope="row">{user.name}</th>
      <td>{user.enabled ? 'Enabled' : 'Disabled'}</td>
      <td>
        {user.permissionSets.length === 0
          ? 'none'
          : user.permissionSets.map((set) => scopeText(set.permissionSet, set.company)).join(', ')}
      </td>
      <td>{user.accessKeyExpired ? `expired ${expires}` : expires ? `expires ${expires}` : 'no expiry'}</td>
      <td>{user.createdAt ? timestampDate(user.createdAt).toLocaleString() : '—'}</td>
      {mayChange ? (
        <td className="row-actions">
          <RowButton onClick={onGrants}>Permission sets</RowButton>
          <ConfirmButton
            actions={actions}
            title="A new access key?"
            body={
              <>
                <code>{user.name}</code> gets a new access key, shown once, and{' '}
                <strong>the current key stops working at once</strong>: calls that still send it get 401 Unauthorized.
              </>
            }
            action="New key"
            run={async () => {
              const answer = await regenerateKey.mutateAsync({ name: user.name });
              return {
                done: `${user.name} has a new access key; the old one no longer works.`,
                reveal: accessKeyReveal(user.name, answer.accessKey),
              };
            }}
          >
            New key
          </ConfirmButton>
          <ActionButton
            actions={actions}
            run={async () => {
              await setState.mutateAsync({ name: user.name, enabled: !user.enabled });
              return { done: `${user.name} is ${user.enabled ? 'disabled: its calls are refused' : 'enabled'}.` };
            }}
          >
            {user.enabled ? 'Disable' : 'Enable'}
          </ActionButton>
          <DeleteButton
            actions={actions}
            what="service user"
            body={
              <>
                <code>{user.name}</code>, its access key and its permission sets are deleted. Calls with its key are
                refused from now on.
              </>
            }
            remove={() => remove.mutateAsync({ name: user.name })}
            done={`Service user ${user.name} deleted.`}
          />
        </td>
      ) : null}
    </tr>
  );
}

function NewServiceUser({ actions }: { actions: PageActions }) {
  const create = useMutation(FlowAdminService.method.createUser);
  const firstCompany = useFirstCompany();
  const [name, setName] = useState('');
  const [company, setCompany] = useState<string>();
  const [permissionSet, setPermissionSet] = useState<string>(USER_PERMISSION_SETS[0]);
  const [expires, setExpires] = useState('');
  const scope = scopeOf(company ?? firstCompany);
  const createUser = async () => {
    const answer = await create.mutateAsync({
      name,
      ...scope,
      permissionSet,
      accessKeyExpiresAt: expires ? timestampFromDate(new Date(expires)) : undefined,
    });
    return {
      done: `Service user ${answer.name} created with ${scopeText(permissionSet, scope.company)}.`,
      reveal: accessKeyReveal(answer.name, answer.accessKey),
    };
  };
  return (
    <ActionForm
      className="inline-form"
      aria-label="New service user"
      actions={actions}
      run={createUser}
      onDone={() => setName('')}
    >
      <TextField label="Name" value={name} onValue={setName} required autoComplete="off" />
      <CompanyScopeField label="Company" value={company ?? firstCompany} onChange={setCompany} />
      <SelectField label="Permission set" value={permissionSet} onValue={setPermissionSet}>
        {USER_PERMISSION_SETS.map((set) => (
          <option key={set}>{set}</option>
        ))}
      </SelectField>
      <TextField label="Key expires (optional)" type="datetime-local" value={expires} onValue={setExpires} />
      <button type="submit">Create service user</button>
    </ActionForm>
  );
}
