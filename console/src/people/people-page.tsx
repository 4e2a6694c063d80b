// People and machines: service users, OAuth applications and service accounts
// — everything that calls flowhook, on one page — and, for admins, who is
// signed in to the console. They belong to the
// deployment, not to one company, so reading them needs a role in every
// company and changing them the admin role there (engine/console/
// console-people-rules.ts); anyone else is told so instead of a list.
import { mayIn, useSession } from '../session/session.tsx';
import { usePageActions } from '../ui/page-actions.tsx';
import { AppsSection } from './apps-section.tsx';
import { ConsoleSessionsSection } from './console-sessions-section.tsx';
import { ServiceAccountsSection } from './service-accounts-section.tsx';
import { ServiceUsersSection } from './service-users-section.tsx';

export default function PeoplePage() {
  const { person } = useSession();
  const actions = usePageActions();
  const sees = mayIn(person, '', 'viewer');
  const mayChange = mayIn(person, '', 'admin');
  return (
    <section aria-labelledby="people-title">
      <div className="page-head">
        <h1 id="people-title" tabIndex={-1}>
          People and machines
        </h1>
      </div>
      {!sees ? (
        <p>Service users, applications and service accounts act in every company they are given: seeing them needs a role in every company.</p>
      ) : (
        <>
          {mayChange ? null : <p className="muted">You can read these: changing them needs the admin role in every company.</p>}
          {actions.view}
          <ServiceUsersSection actions={actions} mayChange={mayChange} />
          <AppsSection actions={actions} mayChange={mayChange} />
          <ServiceAccountsSection actions={actions} mayChange={mayChange} />
          {mayChange ? <ConsoleSessionsSection actions={actions} /> : null}
        </>
      )}
    </section>
  );
}
