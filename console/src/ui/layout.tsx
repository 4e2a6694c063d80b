// Every signed-in page: a skip link, the header (the pages, the company
// picker, the person and Sign out) and the main region pages render into.
import type { ReactNode } from 'react';
import { Link, matchPath, NavLink, useLocation, useNavigate } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { useSession } from '../session/session.tsx';
import './admin-pages.css';

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
        <ConsoleNav />
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

/** The pages: those of a company go to the company shown now (else the first one the person sees). */
function ConsoleNav() {
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const company = encodeURIComponent(useCompanyInAddress() || (companies.data?.companies[0]?.name ?? ''));
  return (
    <nav aria-label="Console" className="app-nav">
      <ul>
        <li>
          <NavLink to={`/flows/${company}`}>Flows</NavLink>
        </li>
        <li>
          <NavLink to={`/settings/${company}`}>Company settings</NavLink>
        </li>
        <li>
          <NavLink to="/people">People and machines</NavLink>
        </li>
        <li>
          <NavLink to="/audit">Audit log</NavLink>
        </li>
      </ul>
    </nav>
  );
}

/** Company pages (/<section>/:company…): changing the company stays in the section. */
const COMPANY_PAGES = ['/flows/:company/*', '/new-flow/:company', '/settings/:company'];

function useCompanyInAddress(): string {
  const location = useLocation();
  const match = COMPANY_PAGES.map((pattern) => matchPath(pattern, location.pathname)).find(Boolean);
  // matchPath leaves the address's percent-encoding in ("People%20Co"); the picker needs the name.
  const company = match?.params.company ?? '';
  try {
    return decodeURIComponent(company);
  } catch {
    return company;
  }
}

/** The company the company pages show: from the address, changed here. */
function CompanyPicker() {
  const location = useLocation();
  const navigate = useNavigate();
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const current = useCompanyInAddress();
  const section = location.pathname.startsWith('/settings/') ? 'settings' : 'flows';
  if (!companies.data || companies.data.companies.length === 0) return null;
  return (
    <div className="company-picker">
      <label htmlFor="company-picker">Company</label>
      <select id="company-picker" value={current} onChange={(event) => void navigate(`/${section}/${encodeURIComponent(event.target.value)}`)}>
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
