// The company the page is about, and the header's way between a company's
// pages. The company is in the path (/flows/:company, /overview/:company, …)
// or, on the execution list, in its filter (?company=…); the picker keeps the
// page kind when it changes company. One entry per page kind.
import { Link, matchPath, useLocation, type Location } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';

const SECTIONS: { label: string; pattern: string; path(company: string): string }[] = [
  { label: 'Overview', pattern: '/overview/:company', path: (company) => `/overview/${encodeURIComponent(company)}` },
  { label: 'Flows', pattern: '/flows/:company/*', path: (company) => `/flows/${encodeURIComponent(company)}` },
  {
    label: 'Executions',
    pattern: '/executions',
    path: (company) => `/executions?company=${encodeURIComponent(company)}`,
  },
  {
    label: 'Deliveries',
    pattern: '/deliveries/:company/*',
    path: (company) => `/deliveries/${encodeURIComponent(company)}`,
  },
  {
    label: 'Connections',
    pattern: '/connections/:company',
    path: (company) => `/connections/${encodeURIComponent(company)}`,
  },
  { label: 'Alerts', pattern: '/alerts/:company', path: (company) => `/alerts/${encodeURIComponent(company)}` },
  {
    label: 'Company settings',
    pattern: '/settings/:company',
    path: (company) => `/settings/${encodeURIComponent(company)}`,
  },
];

/** The company of the last page that named one: a page about one execution keeps the header's company. In memory only. */
let lastCompany = '';

export function companyOf(location: Location): string {
  const found = matchPath('/executions', location.pathname)
    ? (new URLSearchParams(location.search).get('company') ?? '')
    : decoded(
        [...SECTIONS.map((section) => section.pattern), '/new-flow/:company']
          .map((pattern) => matchPath(pattern, location.pathname)?.params.company)
          .find(Boolean),
      );
  if (found) lastCompany = found;
  return found || lastCompany;
}

/** matchPath leaves the address's percent-encoding in ("People%20Co"); pages and the picker need the name. */
function decoded(company: string | undefined): string | undefined {
  if (company === undefined) return undefined;
  try {
    return decodeURIComponent(company);
  } catch {
    return company;
  }
}

/** The same kind of page for another company (its flows when the page has no company). */
export function samePageFor(location: Location, company: string): string {
  const section = SECTIONS.find((candidate) => matchPath(candidate.pattern, location.pathname)) ?? SECTIONS[1]!;
  return section.path(company);
}

export function CompanyNav() {
  const location = useLocation();
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  // On a page of no company (people, audit log) the sections lead to the last company shown, else the first one the person sees.
  const company = companyOf(location) || (companies.data?.companies[0]?.name ?? '');
  if (!company) return null;
  return (
    <nav aria-label="Sections" className="company-nav">
      {SECTIONS.map((section) => (
        <Link
          key={section.label}
          to={section.path(company)}
          aria-current={matchPath(section.pattern, location.pathname) ? 'page' : undefined}
        >
          {section.label}
        </Link>
      ))}
    </nav>
  );
}
