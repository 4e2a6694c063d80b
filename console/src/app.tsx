// The routes, one per resource, under the signed-in layout; the sign-in page
// in their place while nobody is signed in. Pages other than the flow list
// load on first use, so the first load stays small.
//   /flows/:company              the company's flows
//   /new-flow/:company           the card of a new flow
//   /flows/:company/:name        a flow's card (?tab=yaml|versions|try)
//   /executions/:executionId     one execution (what "Try it" links to)
//   /overview/:company           the company's last hour
//   /executions?company=…&…      the execution list, its filter in the query
//   /connections/:company        the company's connections
//   /settings/:company           a company's hook secrets and egress list
//   /people                      service users, OAuth applications, service accounts
//   /audit                       the audit log (?person=&action=&company=&since=&until=)
//   /deliveries/:company         the company's delivery log (?outcome=&reason=&caller=&activity=&since=&until=)
//   /deliveries/:company/:id     one delivery (headers redacted; Replay for admins)
//   /alerts/:company             the company's alert rules
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { useSession } from './session/session.tsx';
import { SignInPage } from './session/sign-in-page.tsx';
import { Layout } from './ui/layout.tsx';
import { FlowsPage } from './flows/flows-page.tsx';
import { LoadProblem, Loading } from './ui/states.tsx';
import { SecretRevealProvider } from './card/secret-dialog.tsx';

const FlowCardPage = lazy(() => import('./card/flow-card-page.tsx'));
const ExecutionPage = lazy(() => import('./executions/execution-page.tsx'));
const OverviewPage = lazy(() => import('./overview/overview-page.tsx'));
const ExecutionsPage = lazy(() => import('./executions/executions-page.tsx'));
const ConnectionsPage = lazy(() => import('./connections/connections-page.tsx'));
const CompanySettingsPage = lazy(() => import('./company-settings/company-settings-page.tsx'));
const PeoplePage = lazy(() => import('./people/people-page.tsx'));
const AuditPage = lazy(() => import('./audit/audit-page.tsx'));
const DeliveriesPage = lazy(() => import('./deliveries/deliveries-page.tsx'));
const DeliveryPage = lazy(() => import('./deliveries/delivery-page.tsx'));
const AlertsPage = lazy(() => import('./alerts/alerts-page.tsx'));

export function App() {
  const session = useSession();
  if (session.loading) return <Loading what="the console" />;
  if (!session.person) return <SignInPage />;
  return (
    <SecretRevealProvider>
      <Layout>
        <Suspense fallback={<Loading what="the page" />}>
          <Routes>
            <Route path="/" element={<FirstCompany />} />
            <Route path="/flows/:company" element={<FlowsPage />} />
            <Route path="/new-flow/:company" element={<CardRoute isNew />} />
            <Route path="/flows/:company/:name" element={<CardRoute />} />
            <Route path="/executions/:executionId" element={<ExecutionPage />} />
            <Route path="/overview/:company" element={<OverviewPage />} />
            <Route path="/executions" element={<ExecutionsPage />} />
            <Route path="/connections/:company" element={<ConnectionsPage />} />
            <Route path="/settings/:company" element={<CompanySettingsPage />} />
            <Route path="/people" element={<PeoplePage />} />
            <Route path="/audit" element={<AuditPage />} />
            <Route path="/deliveries/:company" element={<DeliveriesPage />} />
            <Route path="/deliveries/:company/:id" element={<DeliveryPage />} />
            <Route path="/alerts/:company" element={<AlertsPage />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </Layout>
    </SecretRevealProvider>
  );
}

/** After sign-in: the flows of the first company the person sees. */
function FirstCompany() {
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  if (companies.isPending) return <Loading what="your companies" />;
  if (companies.isError) return <LoadProblem what="your companies" error={companies.error} />;
  const first = companies.data.companies[0];
  if (!first)
    return (
      <p>
        You have a role in no company yet. An admin creates companies with <code>flowhook company create</code>.
      </p>
    );
  return <Navigate replace to={`/flows/${encodeURIComponent(first.name)}`} />;
}

function CardRoute({ isNew = false }: { isNew?: boolean }) {
  const { company = '', name = '' } = useParams();
  // A key per flow: a new flow's card and an existing one's never share their state.
  return (
    <FlowCardPage
      key={isNew ? `new:${company}` : `${company}/${name}`}
      company={company}
      name={isNew ? undefined : name}
    />
  );
}

function NotFound() {
  return (
    <section>
      <h1 tabIndex={-1}>Not found</h1>
      <p>The console has no page at this address.</p>
    </section>
  );
}
