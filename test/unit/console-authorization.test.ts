// Who may do what in the console (engine/domain/callers/console-roles.ts,
// console-rpc-policy.ts), which requests the console answers at all
// (console-request-checks.ts), and its CSRF tokens (console-csrf.ts). Pure.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { HookSecretAdminService } from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { SecretStoreAdminService } from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { ServiceAccountAdminService } from '../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { atLeast, grantsFromClaim, roleIn } from '../../engine/domain/callers/console-roles.ts';
import {
  authorizeRequest,
  authorizeResponse,
  rpcRule,
  CONSOLE_PEOPLE_SERVICES,
  CONSOLE_SERVICES,
} from '../../engine/edges/console/console-rpc-policy.ts';
import { ownOrigin, refusalOfCall, type ConsoleSite } from '../../engine/edges/console/console-request-checks.ts';
import { csrfMatches, csrfTokenOf } from '../../engine/edges/console/console-csrf.ts';

const FLOWS = FlowAdminService.typeName;

test('roles include the ones below them; a grant in every company holds in each', (t) => {
  t.true(atLeast('admin', 'editor'));
  t.true(atLeast('editor', 'viewer'));
  t.false(atLeast('viewer', 'editor'));
  t.false(atLeast(undefined, 'viewer'));
  const grants = { '': 'viewer', Acme: 'editor' } as const;
  t.is(roleIn(grants, 'Acme'), 'editor');
  t.is(roleIn(grants, 'Globex'), 'viewer');
  t.is(roleIn({ Acme: 'admin' }, 'Globex'), undefined);
});

test("the identity provider's roles claim: a role for every company, or <role>:<company>; anything else grants nothing", (t) => {
  t.deepEqual(grantsFromClaim(['viewer', 'editor:Acme', 'admin:Has:Colons', 'owner:Acme', 'editor:', 42]), {
    '': 'viewer',
    Acme: 'editor',
    'Has:Colons': 'admin',
  });
  t.deepEqual(
    grantsFromClaim('viewer:Acme editor:Acme,viewer:Globex'),
    { Acme: 'editor', Globex: 'viewer' },
    'two grants for one company keep the stronger',
  );
  t.deepEqual(grantsFromClaim(undefined), {});
  t.deepEqual(grantsFromClaim({ admin: true }), {});
});

test('a viewer may read a company but not publish, rotate or try in it, nor read another company', (t) => {
  const viewer = { Acme: 'viewer' } as const;
  t.true(authorizeRequest(viewer, FLOWS, 'GetFlow', { company: 'Acme', name: 'f' }).allowed);
  t.true(authorizeRequest(viewer, FLOWS, 'CheckFlow', { flow: { company: 'Acme' } }).allowed);
  for (const method of ['PublishFlow', 'UnpublishFlow', 'RotateSecret', 'TryFlow']) {
    t.deepEqual(
      authorizeRequest(viewer, FLOWS, method, { company: 'Acme' }),
      { allowed: false, reason: 'this needs the editor role in company "Acme"', company: 'Acme' },
      method,
    );
  }
  t.false(authorizeRequest(viewer, FLOWS, 'ApplyFlow', { flow: { company: 'Acme' } }).allowed);
  t.false(authorizeRequest(viewer, FLOWS, 'GetFlow', { company: 'Globex' }).allowed);
  t.false(authorizeRequest(viewer, FLOWS, 'ListFlows', { company: '' }).allowed, 'an empty company is every company');
});

test('an editor works on flows of their companies; companies and people are for admins in every company', (t) => {
  const editor = { Acme: 'editor' } as const;
  t.true(authorizeRequest(editor, FLOWS, 'ApplyFlow', { flow: { company: 'Acme' } }).allowed);
  t.true(authorizeRequest(editor, FLOWS, 'RotateSecret', { company: 'Acme' }).allowed);
  t.false(authorizeRequest(editor, FLOWS, 'CreateUser', { company: 'Acme' }).allowed);
  t.false(
    authorizeRequest({ Acme: 'admin' }, FLOWS, 'CreateCompany', { name: 'New' }).allowed,
    'a company admin does not create companies',
  );
  t.true(authorizeRequest({ '': 'admin' }, FLOWS, 'CreateCompany', { name: 'New' }).allowed);
});

test('an execution names its company in the answer: read only by someone with a role there', (t) => {
  const rule = rpcRule(ExecutionService.typeName, 'GetExecution')!;
  t.true(
    authorizeRequest({ Acme: 'viewer' }, ExecutionService.typeName, 'GetExecution', { executionId: 'a:b' }).allowed,
  );
  t.true(authorizeResponse({ Acme: 'viewer' }, rule, { execution: { company: 'Acme' } }).allowed);
  t.false(authorizeResponse({ Acme: 'viewer' }, rule, { execution: { company: 'Globex' } }).allowed);
  t.false(
    authorizeRequest({}, ExecutionService.typeName, 'GetExecution', { executionId: 'a:b' }).allowed,
    'no role anywhere: not even the call',
  );
});

test('a re-run needs the editor role in the company it names; without a company, in every company', (t) => {
  const rerun = (grants: Record<string, 'viewer' | 'editor' | 'admin'>, company: string) =>
    authorizeRequest(grants, ExecutionService.typeName, 'RerunExecution', { executionId: 'a:b', company }).allowed;
  t.true(rerun({ Acme: 'editor' }, 'Acme'));
  t.false(rerun({ Acme: 'viewer' }, 'Acme'));
  t.false(rerun({ Acme: 'editor' }, ''), 'no company named: the role is needed everywhere');
  t.true(rerun({ '': 'editor' }, ''));
  t.false(
    authorizeRequest({ Acme: 'editor' }, ExecutionService.typeName, 'RevealExecutionPayload', {
      executionId: 'a:b',
      company: 'Acme',
    }).allowed,
    'decrypting needs admin',
  );
});

test('a method without a rule is closed, however strong the role; every served service has rules', (t) => {
  t.false(authorizeRequest({ '': 'admin' }, SecretStoreAdminService.typeName, 'RotateKey', {}).allowed);
  t.false(authorizeRequest({ '': 'admin' }, FlowAdminService.typeName, 'NoSuchMethod', {}).allowed);
  for (const service of [...CONSOLE_SERVICES, ...CONSOLE_PEOPLE_SERVICES])
    t.true(
      service.methods.some((method) => rpcRule(service.typeName, method.name)),
      service.typeName,
    );
});

test("people and machines belong to the deployment: reading needs a role in every company, changing the admin role there; a grant is its company admin's", (t) => {
  const SA = ServiceAccountAdminService.typeName;
  const USERS = UserAdminService.typeName;
  t.true(authorizeRequest({ '': 'viewer' }, SA, 'ListServiceAccounts', {}).allowed);
  t.false(
    authorizeRequest({ Acme: 'admin' }, SA, 'ListServiceAccounts', {}).allowed,
    'an admin of one company sees no deployment-wide list',
  );
  t.false(authorizeRequest({ '': 'editor' }, SA, 'RotateServiceAccountToken', { name: 'ci' }).allowed);
  t.true(authorizeRequest({ '': 'admin' }, SA, 'RotateServiceAccountToken', { name: 'ci' }).allowed);
  t.false(
    authorizeRequest({ Acme: 'admin' }, USERS, 'RegenerateUserKey', { name: 'shop' }).allowed,
    'a key acts in every company the user holds a grant in',
  );
  t.true(
    authorizeRequest({ Acme: 'admin' }, USERS, 'GrantUserPermission', {
      name: 'shop',
      company: 'Acme',
      permissionSet: 'FLOW ALL',
    }).allowed,
  );
  t.false(
    authorizeRequest({ Acme: 'admin' }, USERS, 'GrantUserPermission', {
      name: 'shop',
      company: 'Globex',
      permissionSet: 'FLOW ALL',
    }).allowed,
  );
  t.false(
    authorizeRequest({ Acme: 'admin' }, USERS, 'GrantUserPermission', { name: 'shop', allCompanies: true }).allowed,
    'all companies needs the admin role in every company',
  );
  t.false(authorizeRequest({ '': 'viewer' }, AppAdminService.typeName, 'SetAppState', { clientId: 'erp' }).allowed);
  t.true(
    authorizeRequest({ Acme: 'viewer' }, HookSecretAdminService.typeName, 'ListHookSecrets', { company: 'Acme' })
      .allowed,
  );
  t.false(
    authorizeRequest({ Acme: 'editor' }, HookSecretAdminService.typeName, 'SetHookSecret', {
      company: 'Acme',
      activity: 'github.push',
    }).allowed,
  );
  t.true(
    authorizeRequest({ Acme: 'admin' }, HookSecretAdminService.typeName, 'SetHookSecret', {
      company: 'Acme',
      activity: 'github.push',
    }).allowed,
  );
});

const loopback: ConsoleSite = { scheme: 'http', loopbackOnly: true };

test('a call must come from a page of the console: its Origin, same-origin Sec-Fetch-Site, a loopback host name on loopback', (t) => {
  const ok = { host: '127.0.0.1:7054', origin: 'http://127.0.0.1:7054', secFetchSite: 'same-origin' };
  t.is(refusalOfCall(loopback, ok), undefined);
  t.is(refusalOfCall(loopback, { ...ok, host: 'localhost:7054', origin: 'http://localhost:7054' }), undefined);
  t.regex(
    refusalOfCall(loopback, { ...ok, origin: 'http://attacker.example' })!,
    /Origin "http:\/\/attacker\.example", expected http:\/\/127\.0\.0\.1:7054/,
  );
  t.regex(refusalOfCall(loopback, { ...ok, origin: undefined })!, /Origin missing/);
  t.regex(refusalOfCall(loopback, { ...ok, secFetchSite: 'cross-site' })!, /Sec-Fetch-Site: cross-site/);
  t.regex(
    refusalOfCall(loopback, { host: 'attacker.example:7054', origin: 'http://attacker.example:7054' })!,
    /answers its own address only/,
    'DNS rebinding',
  );
  t.is(ownOrigin(loopback, '127.0.0.1:7054/x'), undefined);
  const proxied: ConsoleSite = { publicOrigin: 'https://console.example.com', scheme: 'http', loopbackOnly: false };
  t.is(
    refusalOfCall(proxied, { host: '10.0.0.5:7054', origin: 'https://console.example.com' }),
    undefined,
    'behind a proxy the Host may be anything; the Origin may not',
  );
  t.truthy(refusalOfCall(proxied, { host: 'console.example.com', origin: 'http://console.example.com' }));
});

test("a CSRF token belongs to one session and cannot be made without the deployment's key", (t) => {
  const key = randomBytes(32);
  const token = csrfTokenOf(key, 'session-a');
  t.true(csrfMatches(key, 'session-a', token));
  t.false(csrfMatches(key, 'session-b', token));
  t.false(csrfMatches(randomBytes(32), 'session-a', token));
  t.false(csrfMatches(key, 'session-a', undefined));
  t.false(csrfMatches(key, 'session-a', token.slice(1)));
});
