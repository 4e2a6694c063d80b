// Every signed-in page: a skip link, the header (the company picker, the
// person and Sign out) and the main region pages render into.
import type { ReactNode } from 'react';
import { Link, matchPath, useLocation, useNavigate } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { useSession } from '../session/session.tsx';

export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  return (
    <>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand">
          flowhook console
        </Link>
        <CompanyPicker />
        <div className="person">
          <span>
            Signed in as <strong>{session.person?.name}</strong>
          </span>
          <button type="button" className="secondary on-dark" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/** The company whose flows the pages show: from the address, changed here. */
function CompanyPicker() {
  const location = useLocation();
  const navigate = useNavigate();
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const match = matchPath('/flows/:company/*', location.pathname) ?? matchPath('/new-flow/:company', location.pathname);
  const current = match?.params.company ?? '';
  if (!companies.data || companies.data.companies.length === 0) return null;
  return (
    <div className="company-picker">
      <label htmlFor="company-picker">Company</label>
      <select id="company-picker" value={current} onChange={(event) => void navigate(`/flows/${encodeURIComponent(event.target.value)}`)}>
        {current === '' ? <option value="">Choose a company</option> : null}
        {companies.data.companies.map((company) => (
          <option key={company.name} value={company.name}>
            {company.name}
          </option>
        ))}
      </select>
    </div>
  );
}
