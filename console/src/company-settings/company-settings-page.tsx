// A company's settings beyond its flows: the hook secrets of its provider
// routes and its egress list. Reading needs a role in the company, changing
// the admin role there.
import { useParams } from 'react-router';
import { ConnectionAdminService } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { HookSecretAdminService } from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { mayIn, useSession } from '../session/session.tsx';
import { usePageActions } from '../ui/page-actions.tsx';
import { Page } from '../ui/page.tsx';
import { EgressSection } from './egress-section.tsx';
import { HookSecretsSection } from './hook-secrets-section.tsx';

/** What the page's actions change: the hook secrets, the egress list, and a flow card's provider route (it says whether its secret is set). */
const SETTINGS_READS = [
  HookSecretAdminService,
  ConnectionAdminService.method.getCompanyEgress,
  FlowAdminService.method.getFlow,
];

export default function CompanySettingsPage() {
  const { company = '' } = useParams();
  const { person } = useSession();
  const actions = usePageActions(SETTINGS_READS);
  const mayChange = mayIn(person, company, 'admin');
  return (
    <Page id="settings-title" title={`Settings of ${company}`}>
      {mayChange ? null : <p className="muted">You can read these: changing them needs the admin role in {company}.</p>}
      {actions.view}
      <HookSecretsSection key={`secrets:${company}`} company={company} actions={actions} mayChange={mayChange} />
      <EgressSection key={`egress:${company}`} company={company} actions={actions} mayChange={mayChange} />
    </Page>
  );
}
