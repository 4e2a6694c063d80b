// Who may fetch an execution's late answer (engine/domain/webhook/answer-access.ts):
// the recorded caller while it may still run flows in the company, or a
// caller with FLOW ALL / SUPER there; everyone else is told "not found" —
// and which answer is handed over (engine/domain/webhook/get-answer.ts).
import test from 'ava';
import { isExecutionId, mayReadAnswer } from '../../engine/domain/webhook/answer-access.ts';
import { answerToHand } from '../../engine/domain/webhook/get-answer.ts';
import type { CallerIdentity } from '../../engine/domain/callers/caller-authentication.ts';
import type { PermissionGrant } from '../../engine/domain/callers/caller-directory.ts';

const COMPANY = 'company-1';
const OTHER = 'company-2';

// Reading an answer goes by company id; the name a grant also carries plays no part here.
type GrantById = Omit<PermissionGrant, 'companyName'>;
const named = (grants: GrantById[]): PermissionGrant[] =>
  grants.map((grant) => ({ ...grant, companyName: grant.companyId }));

function user(name: string, grants: GrantById[]): CallerIdentity {
  return { kind: 'service-user', id: name, name, label: `user:${name}`, grants: named(grants) };
}
function app(clientId: string, grants: GrantById[]): CallerIdentity {
  return { kind: 'application', id: clientId, name: clientId, label: `app:${clientId}`, grants: named(grants) };
}

test('execution ids are accepted in the shapes the engine mints, nothing else', (t) => {
  t.true(isExecutionId('orders.import:0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'));
  t.true(isExecutionId(`payments.callback:key-${'a1'.repeat(20)}`));
  t.true(isExecutionId('orders.import:rerun-0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'), 'a re-run');
  t.false(isExecutionId('orders.import:other-0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'));
  t.true(isExecutionId('odd activity/with:colons:0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'));
  t.false(isExecutionId('0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'), 'no activity');
  t.false(isExecutionId('orders.import:0B4F6A1E-3C2D-4E5F-8A9B-0C1D2E3F4A5B'), 'upper-case uuid: never minted');
  t.false(isExecutionId(`orders.import:key-${'a1'.repeat(19)}`), 'short digest');
  t.false(isExecutionId('orders.import:some-other-workflow'));
  t.false(isExecutionId('orders\nimport:0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'), 'control character');
  t.false(isExecutionId(`${'a'.repeat(201)}:0b4f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b`), 'activity longer than 200');
  t.false(isExecutionId(''));
});

test('the recorded caller reads its own answer while it may still run flows in the company', (t) => {
  t.true(mayReadAnswer(user('alice', [{ companyId: COMPANY, permissionSet: 'FLOW ALL' }]), COMPANY, 'user:alice'));
  t.true(mayReadAnswer(app('portal', [{ companyId: COMPANY, permissionSet: 'FLOW INTEGR.' }]), COMPANY, 'app:portal'));
  // Its grant was withdrawn (or holds for another company only): no more answers either.
  t.false(mayReadAnswer(user('alice', [{ companyId: OTHER, permissionSet: 'FLOW ALL' }]), COMPANY, 'user:alice'));
  t.false(
    mayReadAnswer(app('portal', [{ companyId: COMPANY, permissionSet: 'FLOW ALL' }]), COMPANY, 'app:portal'),
    'FLOW ALL alone is not enough for an application',
  );
});

test("another caller reads an execution's answer only with FLOW ALL or SUPER in that company", (t) => {
  t.true(mayReadAnswer(user('bob', [{ companyId: COMPANY, permissionSet: 'FLOW ALL' }]), COMPANY, 'user:alice'));
  t.true(
    mayReadAnswer(user('root', [{ companyId: null, permissionSet: 'SUPER' }]), COMPANY, 'user:alice'),
    'a grant without company holds everywhere',
  );
  t.false(mayReadAnswer(user('carol', [{ companyId: COMPANY, permissionSet: 'FLOW INTEGR.' }]), COMPANY, 'user:alice'));
  t.false(mayReadAnswer(user('dave', [{ companyId: OTHER, permissionSet: 'FLOW ALL' }]), COMPANY, 'user:alice'));
  t.false(mayReadAnswer(app('portal', [{ companyId: COMPANY, permissionSet: 'FLOW INTEGR.' }]), COMPANY, 'app:other'));
  t.true(
    mayReadAnswer(
      app('ops', [
        { companyId: COMPANY, permissionSet: 'FLOW INTEGR.' },
        { companyId: COMPANY, permissionSet: 'FLOW ALL' },
      ]),
      COMPANY,
      'user:alice',
    ),
  );
});

test('a service account reads only the executions it started itself', (t) => {
  const account: CallerIdentity = {
    kind: 'service-account',
    id: 'erp-sync',
    name: 'erp-sync',
    label: 'account:erp-sync',
    grants: [],
  };
  t.true(mayReadAnswer(account, COMPANY, 'account:erp-sync'));
  t.false(mayReadAnswer(account, COMPANY, 'account:other'));
  t.false(mayReadAnswer(account, COMPANY, 'user:alice'));
});

test("the answer handed over: the respond step's, the default once the flow completed without one, none otherwise", (t) => {
  const base = {
    company: 'Acme',
    caller: 'user:alice',
    answeredAfterTimeout: false,
    defaultResponse: { statusCode: 202, contentType: 'text/plain' },
  };
  const late = { statusCode: 201, contentType: 'application/json', body: '{}' };
  t.deepEqual(
    answerToHand({
      executionId: 'a:1',
      state: 'running',
      answer: { ...base, response: late, answeredAfterTimeout: true },
    }),
    { response: late, isDefault: false },
  );
  t.deepEqual(
    answerToHand({ executionId: 'a:1', state: 'failed', answer: { ...base, response: late } }),
    { response: late, isDefault: false },
    'responded, then failed: the answer stands',
  );
  t.deepEqual(answerToHand({ executionId: 'a:1', state: 'completed', answer: base }), {
    response: { statusCode: 202, contentType: 'text/plain', body: '' },
    isDefault: true,
  });
  t.is(answerToHand({ executionId: 'a:1', state: 'running', answer: base }), undefined);
  t.is(answerToHand({ executionId: 'a:1', state: 'failed', answer: base }), undefined);
});
