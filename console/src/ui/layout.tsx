// Every signed-in page: a skip link, the header (the pages, the company
// picker, the person and Sign out) and the main region pages render into.
import type { ReactNode } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { useSession } from '../session/session.tsx';
import { CompanyNav, companyOf, samePageFor } from './company-sections.tsx';
import { NameOptions } from './field.tsx';
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
        <CompanyNav />
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

/** The deployment's own pages; a company's pages are in the Sections nav (company-sections.tsx). */
function ConsoleNav() {
  return (
    <nav aria-label="Console" className="app-nav">
      <ul>
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

/** The company the company pages show: from the address, changed here. */
function CompanyPicker() {
  const location = useLocation();
  const navigate = useNavigate();
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const current = companyOf(location);
  if (!companies.data || companies.data.companies.length === 0) return null;
  return (
    <div className="company-picker">
      <label htmlFor="company-picker">Company</label>
      <select
        id="company-picker"
        value={current}
        onChange={(event) => void navigate(samePageFor(location, event.target.value))}
      >
        {current === '' ? <option value="">Choose a company</option> : null}
        <NameOptions names={companies.data.companies.map((company) => company.name)} />
      </select>
    </div>
  );
}
