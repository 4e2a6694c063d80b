// Publishing a waitForCallback step: it needs a name (callbacks find their
// step by it) that no other waitForCallback step has, a timeout within the
// engine's deferral bound, a 2xx responseStatus if any; it is a deferral; and
// `Callbacks.<name>.url` must name a step of the flow that has a URL.
import test from 'ava';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { validateFlow } from '../../flow/index.ts';
import { callbackStepsOf } from '../../flow/steps/callback-steps.ts';

const flowWith = (steps: unknown[], webhook: Record<string, unknown> = { responseMode: 'INSTANT_RETURN' }): FlowJson =>
  ({ company: 'C', name: 'f', trigger: { webhook: { activity: 'a', ...webhook } }, steps }) as FlowJson;
const errorsOf = (steps: unknown[]) => validateFlow(flowWith(steps)).errors;
const sending = (body: string) => ({ httpRequest: { url: 'https://psp.example/payments', method: 'POST', body } });

test('a named wait with a timeout publishes without problems, with a key or a status too', (t) => {
  t.deepEqual(
    validateFlow(
      flowWith([
        sending('{"cb": "${Callbacks.payment.url}"}'),
        { name: 'payment', waitForCallback: { timeout: '1h' } },
      ]),
    ),
    { errors: [], warnings: [] },
  );
  t.deepEqual(
    errorsOf([
      { name: 'order', waitForCallback: { timeout: '3d', key: '${Trigger.Payload.orderId}', responseStatus: 200 } },
    ]),
    [],
  );
  t.deepEqual(errorsOf([{ name: 'p', waitForCallback: { timeout: '1ms', responseStatus: 299 } }]), []);
});

test('the name is required and unique among waitForCallback steps, nested ones included', (t) => {
  t.deepEqual(errorsOf([{ waitForCallback: { timeout: '1h' } }]), [
    'steps[0].name: required for a waitForCallback step (a callback finds its step by name)',
  ]);
  t.deepEqual(
    errorsOf([
      {
        if: {
          condition: '${true}',
          then: [{ name: 'p', waitForCallback: { timeout: '1h' } }],
          else: [{ name: 'p', waitForCallback: { timeout: '2h' } }],
        },
      },
    ]),
    [
      'steps[0].if.else[0].name: "p" is the name of the waitForCallback step steps[0].if.then[0] already; callbacks find their step by name, so it must be unique',
    ],
  );
  // Other kinds keep their rules: their names need not be unique, and a waitForCallback may share one with them.
  t.deepEqual(
    errorsOf([
      { name: 'p', log: { message: 'x' } },
      { name: 'p', log: { message: 'y' } },
      { name: 'p', waitForCallback: { timeout: '1h' } },
    ]),
    [],
  );
  t.true(
    errorsOf([{ name: 'my step', waitForCallback: { timeout: '1h' } }]).some((error) =>
      error.startsWith('steps[0].name: must be an identifier'),
    ),
  );
});

test('the timeout is required, parseable and within FLOWHOOK_MAX_DEFERRAL', (t) => {
  t.deepEqual(errorsOf([{ name: 'p', waitForCallback: {} }]), ['steps[0].waitForCallback.timeout: required']);
  t.regex(
    errorsOf([{ name: 'p', waitForCallback: { timeout: 'soon' } }])[0]!,
    /^steps\[0\]\.waitForCallback\.timeout: /,
  );
  t.deepEqual(errorsOf([{ name: 'p', waitForCallback: { timeout: '0s' } }]), [
    "steps[0].waitForCallback.timeout: between 1ms and 90d (the engine's FLOWHOOK_MAX_DEFERRAL)",
  ]);
  t.deepEqual(
    validateFlow(flowWith([{ name: 'p', waitForCallback: { timeout: '2h' } }]), {
      maxDeferralMs: 3_600_000,
      maxHttpTimeoutMs: 60_000,
    }).errors,
    ["steps[0].waitForCallback.timeout: between 1ms and 1h (the engine's FLOWHOOK_MAX_DEFERRAL)"],
  );
});

test('responseStatus is unset or 200..299; the key is a checked template', (t) => {
  for (const status of [199, 300, 404, 250.5]) {
    t.deepEqual(
      errorsOf([{ name: 'p', waitForCallback: { timeout: '1h', responseStatus: status } }]),
      [`steps[0].waitForCallback.responseStatus: a 2xx status code (200..299), got ${status}`],
      String(status),
    );
  }
  t.regex(
    errorsOf([{ name: 'p', waitForCallback: { timeout: '1h', key: '${Trigger.Paylod.id}' } }])[0]!,
    /^steps\[0\]\.waitForCallback\.key: .*"Trigger\.Paylod" does not exist/,
  );
});

test('a wait before any respond step in sync mode is warned about like any deferral', (t) => {
  const { errors, warnings } = validateFlow(
    flowWith([{ name: 'p', waitForCallback: { timeout: '1h' } }, { respond: { statusCode: 200 } }], {
      responseMode: 'WAIT_FOR_RESPONSE_STEP',
    }),
  );
  t.deepEqual(errors, []);
  t.true(
    warnings.some((warning) =>
      warning.startsWith('steps[0].waitForCallback: a deferral can run before any respond step'),
    ),
    warnings.join('\n'),
  );
});

test('Callbacks.<name>.url must name a waitForCallback step of the flow without a key', (t) => {
  const waits = [
    { name: 'payment', waitForCallback: { timeout: '1h' } },
    { name: 'order', waitForCallback: { timeout: '1h', key: 'k' } },
  ];
  t.deepEqual(
    errorsOf([
      sending('${Callbacks.payment.url} {{Callbacks.payment.url}} ${$encodeUrlComponent(Callbacks.payment.url)}'),
      ...waits,
    ]),
    [],
  );
  t.deepEqual(errorsOf([sending('${Callbacks.paymnet.url}'), ...waits]), [
    'steps[0].httpRequest.body: Formula "${Callbacks.paymnet.url}" failed: "Callbacks.paymnet": no waitForCallback step of this flow is named "paymnet"; the waitForCallback steps with a URL are "payment" (did you mean "Callbacks.payment"?)',
  ]);
  t.deepEqual(errorsOf([sending('${Callbacks.order.url}'), ...waits]), [
    'steps[0].httpRequest.body: Formula "${Callbacks.order.url}" failed: "Callbacks.order": the waitForCallback step "order" (steps[2]) waits for a key, so it has no callback URL',
  ]);
  t.deepEqual(errorsOf([sending('{{Callbacks.payment.uri}}'), ...waits]), [
    'steps[0].httpRequest.body: Formula "{{Callbacks.payment.uri}}" failed: "Callbacks.payment.uri" does not exist: Callbacks.payment has url (did you mean "Callbacks.payment.url"?)',
  ]);
  // A step of another kind with that name has no callback URL either.
  t.regex(
    errorsOf([{ name: 'create', ...sending('${Callbacks.create.url}') }])[0]!,
    /"Callbacks\.create": no waitForCallback step of this flow is named "create"; it has no waitForCallback step with a URL/,
  );
  t.regex(
    errorsOf([{ log: { message: '${Calbacks.x.url}' } }])[0]!,
    /unknown name "Calbacks".*\(did you mean "Callbacks"\?\)/,
  );
});

test("the flow's waitForCallback steps by name: nested ones, mode and answer status, the first of a doubled name", (t) => {
  const steps = [
    { if: { condition: '${true}', then: [{ name: 'a', waitForCallback: { timeout: '1h', responseStatus: 200 } }] } },
    { name: 'b', waitForCallback: { timeout: '1h', key: '${Trigger.Payload.id}' } },
    { name: 'a', waitForCallback: { timeout: '1h' } },
    { waitForCallback: { timeout: '1h' } },
    { name: 'c', sleep: { duration: '1s' } },
  ];
  t.deepEqual(
    [...callbackStepsOf(steps as NonNullable<FlowJson['steps']>)],
    [
      ['a', { name: 'a', path: 'steps[0].if.then[0]', keyed: false, responseStatus: 200 }],
      ['b', { name: 'b', path: 'steps[1]', keyed: true, responseStatus: 202 }],
    ],
  );
});
