// What one company's people learn about another company through the console
// (issue 35), end to end: people sign in with a real identity provider
// (oidc-provider) as admin or viewer of company A only, and call the console's
// RPCs as its pages do. A's admin gives and takes a service user's grants in
// A and learns nothing of the user's grants in B — neither from the answers
// nor from a refusal; A's viewer asking for one of B's executions gets the very
// answer an unknown id gets; and a refused call that names B is on record in
// the deployment's audit log, under the person, and not in B's.
import test from 'ava';
import { fromJson } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createAdminTransport } from '../../bin/cli/admin-client.ts';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { AuditService } from '../../proto/gen/flowhook/engine/v1/audit_service_pb.js';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.ts';
import { oidcConsoleEnv, signInWithOidc } from '../support/oidc-sign-in.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, flow, type Tenant } from '../support/webhook-helpers.ts';

const A = 'Alpha Tenant';
const B = 'Bravo Tenant';
const USERS = 'flowhook.engine.v1.UserAdminService';
const EXECUTIONS = 'flowhook.engine.v1.ExecutionService';

let stack: TestStack;
let idp: TestOidcProvider;
let consoleUrl: string;
const tenants = new Map<string, Tenant & { secret: string }>();

test.before(async () => {
  const port = await findFreePort();
  consoleUrl = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({
    clientId: 'flowhook-console',
    redirectUri: `${consoleUrl}/auth/oidc/callback`,
    people: [
      { accountId: 'ada', name: 'ada@alpha.example', roles: [`admin:${A}`] },
      { accountId: 'vic', name: 'vic@alpha.example', roles: [`viewer:${A}`] },
    ],
  });
  stack = await startStack({
    env: {
      ...oidcConsoleEnv(port, idp),
    },
  });
  for (const company of [A, B]) {
    const tenant = await createTenant(stack, company);
    const activity = `greet.${company.split(' ')[0]!.toLowerCase()}`;
    const applied = await stack.admin.applyFlow({
      flow: fromJson(
        FlowSchema,
        flow(company, 'greeter', { activity }, [{ respond: { description: 'Greet', statusCode: 200 } }]) as never,
      ),
      publish: true,
    });
    tenants.set(company, { ...tenant, secret: applied.secret });
  }
});
test.after.always(async () => {
  await stack?.close();
  await idp?.close();
});

async function executionOf(company: string): Promise<string> {
  const tenant = tenants.get(company)!;
  const answer = await callWebhook(stack, {
    company,
    activity: `greet.${company.split(' ')[0]!.toLowerCase()}`,
    secret: tenant.secret,
    auth: tenant.auth,
  });
  if (!answer.executionId) throw new Error(`no execution: ${answer.status} ${answer.text}`);
  await stack.temporal.workflow.getHandle(answer.executionId).result();
  return answer.executionId;
}

/** A service user with grants in both companies, made by the deployment's admin. */
async function userInBoth(name: string): Promise<void> {
  await stack.admin.createUser({ name, company: B, permissionSet: 'FLOW ALL' });
  await stack.admin.grantUserPermission({ name, company: B, permissionSet: 'SUPER' });
}

const mentionsB = (answer: { json: unknown }) => JSON.stringify(answer.json).includes(B);

test.serial("A's admin gives and takes a user's grants in A, and learns nothing of its grants in B", async (t) => {
  await userInBoth('shared-feed');
  const ada = await signInWithOidc(consoleUrl, idp, 'ada');

  const granted = await ada.call(USERS, 'GrantUserPermission', {
    name: 'shared-feed',
    company: A,
    permissionSet: 'FLOW ALL',
  });
  t.is(granted.status, 200, JSON.stringify(granted.json));
  t.deepEqual((granted.json.user as { permissionSets: unknown[] }).permissionSets, [
    { permissionSet: 'FLOW ALL', company: A, usable: true },
  ]);
  t.false(mentionsB(granted), 'the answer lists no grant of B');

  const missing = await ada.call(USERS, 'RevokeUserPermission', {
    name: 'shared-feed',
    company: A,
    permissionSet: 'SUPER',
  });
  t.is(missing.status, 404);
  t.regex(String(missing.json.message), /its grants you can see: FLOW ALL \(Alpha Tenant\)/);
  t.false(mentionsB(missing), 'nor does a refusal');

  const revoked = await ada.call(USERS, 'RevokeUserPermission', {
    name: 'shared-feed',
    company: A,
    permissionSet: 'FLOW ALL',
  });
  t.is(revoked.status, 200, JSON.stringify(revoked.json));
  t.deepEqual((revoked.json.user as { permissionSets?: unknown[] }).permissionSets ?? [], []);
  t.deepEqual(
    revoked.json.warnings,
    [`User "shared-feed" can no longer call in company "${A}"`],
    'said about A alone, not where else it still calls',
  );
  t.false(mentionsB(revoked));

  // The deployment's admin still sees every grant, and B's are untouched.
  const user = await stack.admin.getUser({ name: 'shared-feed' });
  t.deepEqual(
    user.user?.permissionSets.map((held) => `${held.permissionSet} (${held.company})`),
    [`FLOW ALL (${B})`, `SUPER (${B})`],
  );
});

test.serial("A's viewer asking for B's execution gets the answer of an unknown id, word for word", async (t) => {
  const [own, others] = [await executionOf(A), await executionOf(B)];
  const vic = await signInWithOidc(consoleUrl, idp, 'vic');
  const mine = await vic.call(EXECUTIONS, 'GetExecution', { executionId: own });
  t.is(mine.status, 200, JSON.stringify(mine.json));
  t.is((mine.json.execution as { company: string }).company, A);

  const unknown = `${others.slice(0, -4)}zzzz`;
  const [notMine, notThere] = [
    await vic.call(EXECUTIONS, 'GetExecution', { executionId: others }),
    await vic.call(EXECUTIONS, 'GetExecution', { executionId: unknown }),
  ];
  t.is(notMine.status, 404);
  t.deepEqual(notMine.json, { code: 'not_found', message: `Execution "${others}" does not exist` });
  t.is(notThere.status, notMine.status);
  t.is(
    JSON.stringify(notMine.json).replaceAll(others, unknown),
    JSON.stringify(notThere.json),
    'the same bytes, but for the id the caller sent',
  );
  t.is(notMine.headers.get('content-type'), notThere.headers.get('content-type'));
});

test.serial(
  "a refused call that names B goes to the deployment's audit log under the person, never to B's",
  async (t) => {
    const vic = await signInWithOidc(consoleUrl, idp, 'vic');
    const refused = await vic.flowAdmin('UnpublishFlow', { company: B, name: 'text chosen by vic' });
    t.is(refused.status, 403);
    // And one in A, where vic is a viewer: A's own people's attempts are A's business.
    t.is((await vic.flowAdmin('UnpublishFlow', { company: A, name: 'greeter' })).status, 403);

    const audit = createClient(
      AuditService,
      createAdminTransport({ engineUrl: stack.engineUrl, adminToken: stack.adminToken }),
    );
    const inB = (await audit.listAuditEvents({ company: B })).events;
    t.false(
      inB.some((event) => event.person === 'vic@alpha.example' || event.target.includes('chosen')),
      "nothing of vic's in B's log",
    );
    const byVic = (await audit.listAuditEvents({ person: 'vic@alpha.example' })).events;
    const outside = byVic.find((event) => event.target === 'text chosen by vic');
    t.like(
      outside,
      { company: '', action: 'flow.unpublish', outcome: 'permission_denied', account: 'console-oidc' },
      "in the deployment's log",
    );
    t.deepEqual(
      JSON.parse(outside?.detailsJson ?? '{}'),
      { namedCompany: B },
      'with the company it named, for the deployment admins',
    );
    t.like(
      byVic.find((event) => event.target === 'greeter'),
      { company: A, outcome: 'permission_denied' },
      "in A's log",
    );
  },
);
