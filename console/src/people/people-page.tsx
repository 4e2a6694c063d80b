// People and machines: service users, OAuth applications and service accounts
// — everything that calls flowhook, on one page — and, for admins, who is
// signed in to the console. They belong to the
// deployment, not to one company, so reading them needs a role in every
// company and changing them the admin role there (engine/edges/console/
// console-people-rules.ts); anyone else is told so instead of a list.
import { AppAdminService } from '../../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { ConsoleSessionAdminService } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import { ServiceAccountAdminService } from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { UserAdminService } from '../../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { mayIn, useSession } from '../session/session.tsx';
import { usePageActions } from '../ui/page-actions.tsx';
import { Page } from '../ui/page.tsx';
import { AppsSection } from './apps-section.tsx';
import { ConsoleSessionsSection } from './console-sessions-section.tsx';
import { ServiceAccountsSection } from './service-accounts-section.tsx';
import { ServiceUsersSection } from './service-users-section.tsx';

/**
 * What the page's actions change: its four lists. Sessions among them, as a
 * rotated, disabled or deleted service account ends the sessions signed in with it.
 */
const PEOPLE_READS = [UserAdminService, AppAdminService, ServiceAccountAdminService, ConsoleSessionAdminService];

export default function PeoplePage() {
  const { person } = useSession();
  const actions = usePageActions(PEOPLE_READS);
  const sees = mayIn(person, '', 'viewer');
  const mayChange = mayIn(person, '', 'admin');
  return (
    <Page id="people-title" title="People and machines">
      {!sees ? (
        <p>
          Service users, applications and service accounts act in every company they are given: seeing them needs a role
          in every company.
        </p>
      ) : (
        <>
          {mayChange ? null : (
            <p className="muted">You can read these: changing them needs the admin role in every company.</p>
          )}
          {actions.view}
          <ServiceUsersSection actions={actions} mayChange={mayChange} />
          <AppsSection actions={actions} mayChange={mayChange} />
          <ServiceAccountsSection actions={actions} mayChange={mayChange} />
          {mayChange ? <ConsoleSessionsSection actions={actions} /> : null}
        </>
      )}
    </Page>
  );
}
