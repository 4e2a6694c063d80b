// Which callers may learn about a company (engine/domain/callers/permissions.ts): one
// holding no permission set there, nor one for all companies, is answered
// before any lookup, so unknown and known tenants look alike to it.
import test from 'ava';
import type { CallerIdentity } from '../../engine/domain/callers/caller-authentication.ts';
import type { PermissionGrant } from '../../engine/domain/callers/caller-directory.ts';
import { mayLearnAboutCompany } from '../../engine/domain/callers/permissions.ts';

const grant = (companyName: string | null, permissionSet = 'FLOW ALL'): PermissionGrant => ({
  companyId: companyName && `id-${companyName}`,
  companyName,
  permissionSet,
});
const user = (...grants: PermissionGrant[]): CallerIdentity => ({
  kind: 'service-user',
  id: 'u',
  name: 'svc',
  label: 'user:svc',
  grants,
});
const app = (...grants: PermissionGrant[]): CallerIdentity => ({
  kind: 'application',
  id: 'a',
  name: 'erp',
  label: 'app:erp',
  grants,
});

test('a caller learns about the companies it holds a set in, and every company with an all-companies set', (t) => {
  t.true(mayLearnAboutCompany(user(grant('Acme')), 'Acme'));
  t.false(mayLearnAboutCompany(user(grant('Acme')), 'Globex'));
  t.false(mayLearnAboutCompany(user(grant('Acme')), 'acme'), 'company names are exact');
  t.false(mayLearnAboutCompany(user(grant('Acme')), 'No Such Company'));
  t.true(mayLearnAboutCompany(user(grant(null)), 'Globex'));
  t.true(mayLearnAboutCompany(user(grant(null)), 'No Such Company'), 'an all-companies caller is told what is missing');
  t.true(mayLearnAboutCompany(app(grant('Acme', 'FLOW INTEGR.')), 'Acme'));
  t.false(mayLearnAboutCompany(app(), 'Acme'), 'an application registered without a set');
});

test('any set in the company counts, also one that cannot run flows: that caller gets the 403 naming the set it lacks', (t) => {
  t.true(mayLearnAboutCompany(user(grant('Acme', 'FLOW INTEGR.')), 'Acme'));
  t.true(mayLearnAboutCompany(app(grant('Acme', 'FLOW ALL')), 'Acme'));
});

test('a service account holds no sets: its companies are checked after the secret, as before', (t) => {
  const account: CallerIdentity = {
    kind: 'service-account',
    id: 'erp-sync',
    name: 'erp-sync',
    label: 'account:erp-sync',
    grants: [],
  };
  t.true(mayLearnAboutCompany(account, 'Acme'));
});
