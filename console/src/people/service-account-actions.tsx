// What an admin does to one service account: rotate its token (the new one
// shown once), disable or enable it, delete it. The account the person signed
// in with is theirs too: rotating, disabling or deleting it ends their own
// session, which the question says first — and a new token is shown before
// the console gives way to the sign-in form.
import { useMutation } from '@connectrpc/connect-query';
import {
  ServiceAccountAdminService,
  type ServiceAccountInfo,
} from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { SignInMethod } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { useSession } from '../session/session.tsx';
import { ActionButton, ConfirmButton, DeleteButton } from '../ui/action-buttons.tsx';
import type { Outcome, PageActions } from '../ui/page-actions.tsx';

export function tokenReveal(name: string, token: string): Outcome['reveal'] {
  return {
    title: 'Service account token',
    what: (
      <>
        The token of service account <code>{name}</code>.
      </>
    ),
    value: token,
    use: <>flowhook keeps only its hash. The account sends it as a bearer token to the engine.</>,
  };
}

export function ServiceAccountActions({ account, actions }: { account: ServiceAccountInfo; actions: PageActions }) {
  const { person } = useSession();
  const rotate = useMutation(ServiceAccountAdminService.method.rotateServiceAccountToken);
  const changeState = useMutation(ServiceAccountAdminService.method.setServiceAccountState);
  const remove = useMutation(ServiceAccountAdminService.method.deleteServiceAccount);
  const own = person?.via === SignInMethod.ADMIN_TOKEN && person.name === account.name;
  const signsOut = own ? (
    <strong> You are signed in with this account&apos;s token: this signs you out of the console.</strong>
  ) : null;
  const setState = async (): Promise<Outcome> => {
    await changeState.mutateAsync({ name: account.name, enabled: !account.enabled });
    return { done: `${account.name} is ${account.enabled ? 'disabled: its token is refused' : 'enabled'}.` };
  };
  return (
    <>
      <ConfirmButton
        actions={actions}
        title="Rotate the token?"
        body={
          <>
            <code>{account.name}</code> gets a new token, shown once, and{' '}
            <strong>the current token stops working at once</strong>.
            {own ? (
              <strong> You are signed in with it: once you close the dialog, sign in again with the new token.</strong>
            ) : null}
          </>
        }
        action="Rotate token"
        run={async () => {
          const answer = await rotate.mutateAsync({ name: account.name });
          return {
            done: `${account.name} has a new token; the old one no longer works.`,
            reveal: tokenReveal(account.name, answer.token),
            endsSession: own,
          };
        }}
      >
        Rotate token
      </ConfirmButton>
      {own && account.enabled ? (
        <ConfirmButton
          actions={actions}
          title="Disable your own account?"
          body={<>{signsOut}</>}
          action="Disable"
          run={setState}
        >
          Disable
        </ConfirmButton>
      ) : (
        <ActionButton actions={actions} run={setState}>
          {account.enabled ? 'Disable' : 'Enable'}
        </ActionButton>
      )}
      <DeleteButton
        actions={actions}
        what="service account"
        body={
          <>
            <code>{account.name}</code> and its token are deleted; whatever still uses the token is refused from now on.
            {signsOut}
          </>
        }
        remove={() => remove.mutateAsync({ name: account.name })}
        done={`Service account ${account.name} deleted.`}
      />
    </>
  );
}
