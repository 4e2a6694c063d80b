// Console sessions: who is signed in, how, with which roles, until when — and
// ending them, one person's or everyone's (the engine's
// ConsoleSessionAdminService; the admin role in every company, like every
// change on this page; audited). The list names no cookie. Ending a person's
// sessions signs them out at their next click; ending every session signs out
// the admin too, and the console then shows the sign-in form.
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  ConsoleRole,
  ConsoleSessionAdminService,
  SignInMethod,
  type ConsoleSessionInfo,
} from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { ConfirmButton } from '../ui/action-buttons.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { PageSection } from '../ui/page.tsx';
import { QueryTable } from '../ui/query-table.tsx';

const ROLE_NAMES: Partial<Record<ConsoleRole, string>> = {
  [ConsoleRole.VIEWER]: 'viewer',
  [ConsoleRole.EDITOR]: 'editor',
  [ConsoleRole.ADMIN]: 'admin',
};

export function ConsoleSessionsSection({ actions }: { actions: PageActions }) {
  const list = useQuery(ConsoleSessionAdminService.method.listConsoleSessions, {});
  const end = useMutation(ConsoleSessionAdminService.method.endConsoleSessions);
  return (
    <PageSection
      id="sessions-title"
      title="Console sessions"
      intro={
        <>
          Who is signed in to this console. Ending a person&apos;s sessions signs them out at their next click. Roles
          from the identity provider are read there again every hour when it issued a refresh token; otherwise a session
          keeps the roles of its sign-in until it expires.
        </>
      }
    >
      <p>
        <ConfirmButton
          actions={actions}
          danger
          title="End every session?"
          body={<>Everyone signed in to the console is signed out, you included: each person signs in again.</>}
          action="End every session"
          run={async () => {
            const answer = await end.mutateAsync({ all: true });
            return { done: `${answer.ended} session(s) ended.` };
          }}
        >
          End every session
        </ConfirmButton>
      </p>
      <QueryTable
        read={list}
        what="the sessions"
        rowsOf={(data) => data.sessions}
        caption="Console sessions"
        columns={['Person', 'Signed in with', 'Roles', 'Since', 'Until', 'Roles confirmed', 'Actions']}
      >
        {(session, index) => <SessionRow key={`${session.person}:${index}`} session={session} actions={actions} />}
      </QueryTable>
    </PageSection>
  );
}

function SessionRow({ session, actions }: { session: ConsoleSessionInfo; actions: PageActions }) {
  const end = useMutation(ConsoleSessionAdminService.method.endConsoleSessions);
  const roles = session.roles
    .map((grant) => `${ROLE_NAMES[grant.role] ?? '?'} in ${grant.company === '' ? 'every company' : grant.company}`)
    .join(', ');
  const confirmed =
    session.via === SignInMethod.ADMIN_TOKEN
      ? 'on every call'
      : session.checkedAt
        ? time(session.checkedAt)
        : 'at sign-in only';
  return (
    <tr>
      <th scope="row">
        {session.person}
        {session.current ? ' (you)' : ''}
      </th>
      <td>{session.via === SignInMethod.OIDC ? 'identity provider' : 'admin token'}</td>
      <td>{roles}</td>
      <td>{time(session.createdAt)}</td>
      <td>{time(session.expiresAt)}</td>
      <td>{confirmed}</td>
      <td className="row-actions">
        <ConfirmButton
          actions={actions}
          title={`End the sessions of ${session.person}?`}
          body={
            <>
              Every console session of <code>{session.person}</code> ends: they are signed out at their next click.
              {session.current ? <strong> One of them is yours: you are signed out too.</strong> : null}
            </>
          }
          action="End sessions"
          run={async () => {
            const answer = await end.mutateAsync({ person: session.person });
            return { done: `${answer.ended} session(s) of ${session.person} ended.` };
          }}
        >
          <span aria-hidden="true">End sessions</span>
          <span className="visually-hidden">End the sessions of {session.person}</span>
        </ConfirmButton>
      </td>
    </tr>
  );
}

function time(at: Timestamp | undefined): string {
  return at ? timestampDate(at).toLocaleString() : '';
}
