// Thousands of malformed requests at the real facade → engine stack: every
// answer is a 4xx in the documented shape, nothing leaks, the process stays
// up, and no execution starts.
import test from 'ava';
import fc from 'fast-check';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  countVisibleExecutions,
  createTenant,
  deployFlow,
  flow,
  type Tenant,
} from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let secret: string;
const activity = 'fuzz.target';

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack, 'Fuzz Co');
  ({ secret } = await deployFlow(stack, flow(tenant.company, 'fuzz', { activity }, [])));
});
test.after.always(async () => stack?.close());

interface Probe {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

const goodPath = `/${INSTANCE}/ODataV4/flowWebhook_Invoke?company=Fuzz%20Co`;
const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);
const notAnObject = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
);

function probes(auth: string): fc.Arbitrary<Probe> {
  const json = { 'content-type': 'application/json', authorization: auth };
  return fc.oneof(
    // Not JSON at all, or truncated JSON.
    fc.string({ maxLength: 200 }).map((body) => ({ path: goodPath, method: 'POST', headers: json, body })),
    fc.json().map((text) => ({
      path: goodPath,
      method: 'POST',
      headers: json,
      body: text.slice(0, Math.max(0, text.length - 1)) + (text.length % 2 ? '' : '}'),
    })),
    // JSON, but a member missing or of the wrong type (at least one field is wrong).
    fc
      .record({
        activity: fc.oneof(notAString, fc.constant(activity)),
        secret: fc.oneof(notAString, fc.constant(secret)),
        payload: fc.oneof(notAnObject, fc.constant({})),
      })
      .filter(
        (r) =>
          !(
            r.activity === activity &&
            r.secret === secret &&
            typeof r.payload === 'object' &&
            r.payload !== null &&
            !Array.isArray(r.payload)
          ),
      )
      .map((record) => ({ path: goodPath, method: 'POST', headers: json, body: JSON.stringify(record) })),
    fc
      .record({ activity: fc.constant(activity), payload: fc.constant({}) })
      .map((record) => ({ path: goodPath, method: 'POST', headers: json, body: JSON.stringify(record) })),
    // Right body, wrong secret or wrong credentials.
    fc
      .string({ minLength: 1, maxLength: 40 })
      .filter((s) => s !== secret)
      .map((wrong) => ({
        path: goodPath,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ activity, secret: wrong, payload: {} }),
      })),
    fc.string({ maxLength: 60 }).map((header) => ({
      path: goodPath,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: header },
      body: JSON.stringify({ activity, secret, payload: {} }),
    })),
    // Wrong content type, method, path or company.
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '',
      )
      .map((type) => ({
        path: goodPath,
        method: 'POST',
        headers: { 'content-type': type, authorization: auth },
        body: JSON.stringify({ activity, secret, payload: {} }),
      })),
    fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH').map((method) => ({ path: goodPath, method, headers: json })),
    fc.webPath().map((path) => ({
      path: path || '/',
      method: 'POST',
      headers: json,
      body: JSON.stringify({ activity, secret, payload: {} }),
    })),
    fc
      .oneof(
        fc.constant(''),
        fc.string({ maxLength: 30 }).filter((c) => c !== 'Fuzz Co'),
      )
      .map((company) => ({
        path: `/${INSTANCE}/ODataV4/flowWebhook_Invoke${company === '' ? '' : `?company=${encodeURIComponent(company)}`}`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ activity, secret, payload: {} }),
      })),
  );
}

test('malformed requests get a documented 4xx and start nothing', async (t) => {
  const allowed = new Set([400, 401, 403, 404, 405, 413, 415]);
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(probes(tenant.auth), async (probe) => {
      const response = await fetch(`${stack.facadeUrl}${probe.path}`, {
        method: probe.method,
        headers: probe.headers,
        body: probe.body,
      });
      const text = await response.text();
      checked++;
      if (!allowed.has(response.status))
        throw new Error(`status ${response.status} for ${JSON.stringify(probe)}: ${text}`);
      if (response.headers.get('x-flowhook-execution-id')) throw new Error('an execution id on a refused call');
      if (response.status === 401) {
        if (text !== 'Unauthorized') throw new Error(`401 body ${text}`);
        return;
      }
      const error = probe.method === 'HEAD' ? undefined : JSON.parse(text).error;
      if (typeof error?.code !== 'string' || typeof error?.message !== 'string')
        throw new Error(`not the OData error shape: ${text}`);
      if (/\n\s+at /.test(text) || text.includes(secret)) throw new Error(`leaks: ${text}`);
    }),
    { numRuns: 2000 },
  );
  t.is(checked, 2000);

  // Still up, and the only execution is the one valid call below.
  const valid = await callWebhook(stack, { company: tenant.company, activity, secret, auth: tenant.auth });
  t.is(valid.status, 200);
  await stack.temporal.workflow.getHandle(valid.executionId!).result();
  t.is(await countVisibleExecutions(stack, activity, 1), 1);
});
