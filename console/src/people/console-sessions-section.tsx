// Console sessions: who is signed in, how, with which roles, until when — and
// ending them, one person's or everyone's (the engine's
// ConsoleSessionAdminService; the admin role in every company, like every
// change on this page; audited). The list names no cookie. Ending a person's
// sessions signs them out at their next click; ending every session signs out
// the admin too, and the console then shows the sign-in form.
import { createClient } from '@connectrpc/connect';
import { useQuery } from '@connectrpc/connect-query';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { ConsoleRole, ConsoleSessionAdminService, SignInMethod, type ConsoleSessionInfo } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { transport } from '../rpc/transport.ts';
import { ConfirmButton } from '../ui/action-buttons.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';

const sessions = createClient(ConsoleSessionAdminService, transport);

const ROLE_NAMES: Partial<Record<ConsoleRole, string>> = { [ConsoleRole.VIEWER]: 'viewer', [ConsoleRole.EDITOR]: 'editor', [ConsoleRole.ADMIN]: 'admin' };

export function ConsoleSessionsSection({ actions }: { actions: PageActions }) {
  const list = useQuery(ConsoleSessionAdminService.method.listConsoleSessions, {});
  return (
    <section aria-labelledby="sessions-title" className="people-section">
      <h2 id="sessions-title">Console sessions</h2>
      <p className="muted">
        Who is signed in to this console. Ending a person&apos;s sessions signs them out at their next click. Roles from the identity provider are read there again every hour when
        it issued a refresh token; otherwise a session keeps the roles of its sign-in until it expires.
      </p>
      <p>
        <ConfirmButton
          actions={actions}
          danger
          title="End every session?"
          body={<>Everyone signed in to the console is signed out, you included: each person signs in again.</>}
          action="End every session"
          run={async () => {
            const answer = await sessions.endConsoleSessions({ all: true });
            return { done: `${answer.ended} session(s) ended.` };
          }}
        >
          End every session
        </ConfirmButton>
      </p>
      {list.isPending ? <Loading what="the sessions" /> : null}
      {list.isError ? <LoadProblem what="the sessions" error={list.error} /> : null}
      {list.data && list.data.sessions.length > 0 ? (
        <table>
          <caption className="visually-hidden">Console sessions</caption>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Signed in with</th>
              <th scope="col">Roles</th>
              <th scope="col">Since</th>
              <th scope="col">Until</th>
              <th scope="col">Roles confirmed</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.sessions.map((session, index) => (
              <SessionRow key={`${session.person}:${index}`} session={session} actions={actions} />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function SessionRow({ session, actions }: { session: ConsoleSessionInfo; actions: PageActions }) {
  const roles = session.roles.map((grant) => `${ROLE_NAMES[grant.role] ?? '?'} in ${grant.company === '' ? 'every company' : grant.company}`).join(', ');
  const confirmed = session.via === SignInMethod.ADMIN_TOKEN ? 'on every call' : session.checkedAt ? time(session.checkedAt) : 'at sign-in only';
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
            const answer = await sessions.endConsoleSessions({ person: session.person });
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
