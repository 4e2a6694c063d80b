// The waitForCallback step's run, with the workflow's facilities faked (step
// runners take them as StepServices): a held callback completes it at once, a
// callback during the wait too, a timeout is an outcome, key mode registers
// the key before waiting, a sync caller still waiting fails it; and the
// httpRequest step tells its activity which callback URLs the request carries.
import test from 'ava';
import type { ActivityOptions } from '@temporalio/common';
import type { HttpRequestInput, RegisterCallbackKeyInput } from '../../workflows/activities/index.ts';
import { resolveText, type FormulaContext } from '../../flow/formula/index.ts';
import { CallbackInbox } from '../../workflows/interpreter/callback-inbox.ts';
import type { FlowRuntime } from '../../workflows/steps/flow-runtime.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import { callbackPlaceholder } from '../../flow/callback-placeholders.ts';
import { CALLBACK_ALREADY_RECEIVED, CALLBACK_EXPIRED, DEFERRAL_BEFORE_RESPONSE } from '../../flow/index.ts';
import { httpRequestRunner } from '../../workflows/steps/http-request-runner.ts';
import type { StepCall, StepServices } from '../../workflows/steps/step-runner.ts';
import { waitForCallbackRunner, type CallbackOutput } from '../../workflows/steps/wait-for-callback-runner.ts';

interface Fake {
  call: StepCall;
  inbox: CallbackInbox;
  context: FormulaContext;
  waits: { ms: number; summary: string }[];
  shown: (string | undefined)[];
  activityCalls: { options: ActivityOptions; input: RegisterCallbackKeyInput | HttpRequestInput }[];
}

const LABEL = 'steps[1] waitForCallback "Wait for the provider"';

/** `during`: what happens while the step waits (a delivery); the wait then reports whether its predicate holds. */
function fake(
  options: {
    windowOpen?: boolean;
    during?: (inbox: CallbackInbox) => void;
    name?: string;
    payload?: unknown;
    keyRefusal?: string;
  } = {},
): Fake {
  const inbox = new CallbackInbox(new Map([['payment', 200]]));
  const context: FormulaContext = {
    Trigger: { Payload: options.payload ?? {}, PayloadJson: '{}', Activity: 'pay.url', Description: '' },
    Variables: {},
    Steps: {},
    Execution: { Id: 'exec-1', StartedAt: '' },
    Company: { Name: 'C' },
  };
  const runtime = {
    input: {
      company: 'C',
      caller: 'user:x',
      executionGrant: 'grant-1',
      trigger: { activity: 'pay.url', doNotLogPayload: false },
    },
    executionId: 'exec-1',
    window: { isOpen: options.windowOpen ?? false },
    context,
    callbacks: inbox,
  } as unknown as FlowRuntime;
  const faked: Fake = {
    inbox,
    context,
    waits: [],
    shown: [],
    activityCalls: [],
    call: undefined as unknown as StepCall,
  };
  const services: StepServices = {
    sleep: async () => undefined,
    async waitFor(predicate, ms, { summary }) {
      faked.waits.push({ ms, summary });
      options.during?.(inbox);
      return predicate();
    },
    activities: (activityOptions) => ({
      async registerCallbackKey(input) {
        faked.activityCalls.push({ options: activityOptions, input });
        if (options.keyRefusal) throw new StepFailure(options.keyRefusal);
        return { expiresAtMs: 0 };
      },
      async httpRequest(input) {
        faked.activityCalls.push({ options: activityOptions, input });
        return { status: 200, headers: {}, body: '', url: input.url, redirects: 0 };
      },
      record: async () => {
        throw new Error('not in this test');
      },
    }),
    showStep: (_position, waitingFor) => faked.shown.push(waitingFor),
    runSteps: async () => undefined,
  };
  const position = {
    index: 2,
    count: 3,
    path: 'steps[1]',
    kind: 'waitForCallback',
    description: 'Wait for the provider',
  };
  faked.call = { at: 'steps[1]', label: LABEL, name: options.name ?? 'payment', runtime, services, position };
  return faked;
}

const delivery = (body: string, headers: Record<string, string> = {}) => ({ step: 'payment', body, headers });

test('a callback held before the step runs completes it without a timer', async (t) => {
  const { call, inbox, waits } = fake();
  inbox.deliver(
    delivery('{"status":"succeeded"}', { 'x-psp-signature': 'sig', 'content-type': 'application/json' }),
    '2026-01-01T00:00:00.000Z',
  );
  const result = await waitForCallbackRunner.run({ timeout: '1h' }, call);
  t.deepEqual(waits, []);
  t.deepEqual(result.output, {
    received: true,
    timedOut: false,
    body: '{"status":"succeeded"}',
    json: { status: 'succeeded' },
    headers: { 'x-psp-signature': 'sig', 'content-type': 'application/json' },
    receivedAt: '2026-01-01T00:00:00.000Z',
  });
  t.is(inbox.refusal(delivery('{}'))?.type, CALLBACK_ALREADY_RECEIVED);
});

test('a callback during the wait completes it; the wait is the timeout long, named by the label, and shown with its deadline', async (t) => {
  const { call, waits, shown } = fake({
    during: (inbox) =>
      inbox.deliver(
        delivery('plain text', {
          Authorization: 'Bearer x',
          cookie: 'c',
          'x-forwarded-for': '1.2.3.4',
          host: 'h',
          accept: '*/*',
        }),
        'then',
      ),
  });
  const output = (await waitForCallbackRunner.run({ timeout: '1h' }, call)).output as CallbackOutput;
  t.deepEqual(waits, [{ ms: 3_600_000, summary: LABEL }]);
  t.regex(shown[0] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.is(output.body, 'plain text');
  t.false('json' in output, 'a body that is not JSON has no json');
  t.deepEqual(output.headers, { accept: '*/*' }, 'credentials and proxy headers never reach the flow');
});

test('a timeout is an outcome: received false, timedOut true, and later callbacks are refused as expired', async (t) => {
  const { call, inbox } = fake();
  const result = await waitForCallbackRunner.run({ timeout: '90s' }, call);
  t.deepEqual(result.output, { received: false, timedOut: true, body: '', headers: {} });
  t.is(result.note, 'timed out');
  t.is(inbox.refusal(delivery('{}'))?.type, CALLBACK_EXPIRED);
});

test('the body keeps its exact spelling where the flow writes it out unchanged', async (t) => {
  for (const body of ['{"amount": 1.10, "id": 12345678901234567890}', '1.10']) {
    const { call, context } = fake({ during: (inbox) => inbox.deliver(delivery(body), 'then') });
    context.Steps.payment = (await waitForCallbackRunner.run({ timeout: '1m' }, call)).output;
    t.is(await resolveText('${Steps.payment.json}', context), body);
  }
  const deep = `${'['.repeat(150)}${']'.repeat(150)}`;
  const { call } = fake({ during: (inbox) => inbox.deliver(delivery(deep), 'then') });
  t.false(
    'json' in ((await waitForCallbackRunner.run({ timeout: '1m' }, call)).output as CallbackOutput),
    'absurd nesting stays text',
  );
});

test('key mode registers the resolved key before it waits, with a short bounded activity', async (t) => {
  const { call, activityCalls, waits } = fake({ payload: { orderId: 'SO-4711' } });
  await waitForCallbackRunner.run({ timeout: '2h', key: '${Trigger.Payload.orderId}' }, call);
  t.deepEqual(activityCalls, [
    {
      options: {
        startToCloseTimeout: '10s',
        retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
        summary: LABEL,
      },
      input: {
        company: 'C',
        activity: 'pay.url',
        executionId: 'exec-1',
        executionGrant: 'grant-1',
        step: 'payment',
        key: 'SO-4711',
        timeoutMs: 7_200_000,
      },
    },
  ]);
  t.is(waits.length, 1);

  const empty = fake({ payload: {} });
  await t.throwsAsync(waitForCallbackRunner.run({ timeout: '2h', key: '${Trigger.Payload.orderId}' }, empty.call), {
    message: `${LABEL} failed: its key is empty`,
  });
  t.deepEqual(empty.waits, []);
  const taken = fake({
    payload: { orderId: 'x' },
    keyRefusal: 'another execution still waits for this key in C/pay.url',
  });
  await t.throwsAsync(waitForCallbackRunner.run({ timeout: '2h', key: '${Trigger.Payload.orderId}' }, taken.call), {
    message: /another execution still waits/,
  });
  t.deepEqual(taken.waits, [], 'no wait without the key');
});

test('failures before the wait: a waiting sync caller, a timeout beyond the bound, no name', async (t) => {
  const open = fake({ windowOpen: true });
  const deferral = await t.throwsAsync(waitForCallbackRunner.run({ timeout: '1h' }, open.call));
  t.is((deferral as StepFailure).failureType, DEFERRAL_BEFORE_RESPONSE);
  t.deepEqual(open.waits, []);
  await t.throwsAsync(waitForCallbackRunner.run({ timeout: '91d' }, fake().call), {
    message: /longer than the allowed 90d \(FLOWHOOK_MAX_DEFERRAL\)/,
  });
  await t.throwsAsync(waitForCallbackRunner.run({ timeout: 'soon' }, fake().call), {
    message: new RegExp(`^${LABEL.replace(/[[\]]/g, '\\$&')} failed: `),
  });
  await t.throwsAsync(waitForCallbackRunner.run({ timeout: '1h' }, { ...fake().call, name: undefined }), {
    message: /needs a name/,
  });
});

test('the httpRequest step lists the callback placeholders its resolved request carries, and only then', async (t) => {
  const nonce = 'ab'.repeat(16);
  const { call, context, activityCalls } = fake();
  context.Callbacks = {
    payment: { url: callbackPlaceholder(nonce, 'payment') },
    payment_2: { url: callbackPlaceholder(nonce, 'payment_2') },
    other: { url: callbackPlaceholder(nonce, 'other') },
  };
  context.Variables.cb = callbackPlaceholder(nonce, 'payment_2');
  await httpRequestRunner.run(
    {
      url: 'https://psp.example/p?cb=${$encodeUrlComponent(Callbacks.payment.url)}',
      headers: { 'x-cb': '{{Variables.cb}}' },
      body: 'none',
    },
    call,
  );
  t.deepEqual((activityCalls[0]!.input as HttpRequestInput).callbacks, [
    { step: 'payment', placeholder: callbackPlaceholder(nonce, 'payment') },
    { step: 'payment_2', placeholder: callbackPlaceholder(nonce, 'payment_2') },
  ]);
  await httpRequestRunner.run({ url: 'https://psp.example/p', body: '{"id": 1}' }, call);
  t.false('callbacks' in activityCalls[1]!.input, 'no callbacks field when the request carries none');
});
