// A company's settings beyond its flows: the hook secrets of its provider
// routes and its egress list. Reading needs a role in the company, changing
// the admin role there.
import { useParams } from 'react-router';
import { mayIn, useSession } from '../session/session.tsx';
import { usePageActions } from '../ui/page-actions.tsx';
import { EgressSection } from './egress-section.tsx';
import { HookSecretsSection } from './hook-secrets-section.tsx';

export default function CompanySettingsPage() {
  const { company = '' } = useParams();
  const { person } = useSession();
  const actions = usePageActions();
  const mayChange = mayIn(person, company, 'admin');
  return (
    <section aria-labelledby="settings-title">
      <div className="page-head">
        <h1 id="settings-title" tabIndex={-1}>
          Settings of {company}
        </h1>
      </div>
      {mayChange ? null : <p className="muted">You can read these: changing them needs the admin role in {company}.</p>}
      {actions.view}
      <HookSecretsSection key={`secrets:${company}`} company={company} actions={actions} mayChange={mayChange} />
      <EgressSection key={`egress:${company}`} company={company} actions={actions} mayChange={mayChange} />
    </section>
  );
}
