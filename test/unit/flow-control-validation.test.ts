// Publish-time checks of flow control (flow/flow-control-validation.ts):
// bounds, key formulas like every formula (and reading only what a call
// carries), and the combinations that cannot work, each refused with why.
import test from 'ava';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { validateFlow } from '../../flow/index.ts';
import { resolveFlowControl } from '../../flow/flow-control-settings.ts';

const flowWith = (webhook: Record<string, unknown>, steps: unknown[] = []): FlowJson =>
  ({ company: 'Acme', name: 'f', trigger: { webhook: { activity: 'a.b', ...webhook } }, steps }) as FlowJson;
const errorsOf = (webhook: Record<string, unknown>, steps?: unknown[]) => validateFlow(flowWith(webhook, steps)).errors;
const sync = { responseMode: 'WAIT_FOR_RESPONSE_STEP' };

test('every control, well formed, publishes without a problem', (t) => {
  const controls = {
    concurrency: { key: '${Trigger.Payload.invoice}', limit: 2 },
    throttle: { perSecond: 0.5, burst: 3, key: '${Company.Name}' },
    idempotencyKey: '${Trigger.Payload.event.id}',
    idempotencyWindow: '2h',
    priority: 1,
  };
  t.deepEqual(validateFlow(flowWith(controls)), { errors: [], warnings: [] });
  t.deepEqual(errorsOf({ debounce: { key: '${Trigger.Payload.customer}', period: '10s', maxWait: '1m' } }), []);
  t.deepEqual(errorsOf({ batch: { maxSize: 100, maxWait: '30s' } }), []);
  t.deepEqual(
    errorsOf({ ...sync, concurrency: {}, throttle: { perSecond: 1000 } }),
    [],
    'concurrency and throttle work for Wait for Response step, and without a key',
  );
});

test('debounce and batch are refused for Wait for Response step, saying why', (t) => {
  t.deepEqual(errorsOf({ ...sync, debounce: { key: '${Trigger.Payload.id}', period: '5s' } }), [
    'trigger.webhook.debounce: only with responseMode INSTANT_RETURN: the coalesced execution starts a period after the last call, so no caller could wait for its respond step',
  ]);
  t.deepEqual(errorsOf({ ...sync, batch: { maxSize: 2, maxWait: '5s' } }), [
    'trigger.webhook.batch: only with responseMode INSTANT_RETURN: the batch runs once it is full or maxWait has passed, so no caller could wait for its respond step',
  ]);
});

test('combinations that cannot work are refused: debounce with batch, idempotencyKey with either, a window without a key', (t) => {
  t.true(
    errorsOf({ debounce: { key: 'k', period: '5s' }, batch: { maxSize: 2, maxWait: '5s' } }).some((e) =>
      e.startsWith('trigger.webhook: debounce and batch cannot both be set'),
    ),
  );
  t.true(
    errorsOf({ idempotencyKey: '${Trigger.Payload.id}', batch: { maxSize: 2, maxWait: '5s' } }).some((e) =>
      e.startsWith('trigger.webhook.idempotencyKey: cannot be combined with batch'),
    ),
  );
  t.true(
    errorsOf({ idempotencyKey: '${Trigger.Payload.id}', debounce: { key: 'k', period: '5s' } }).some((e) =>
      e.startsWith('trigger.webhook.idempotencyKey: cannot be combined with debounce'),
    ),
  );
  t.deepEqual(errorsOf({ idempotencyWindow: '1h' }), [
    'trigger.webhook.idempotencyWindow: only with idempotencyKey (an Idempotency-Key header is remembered as long as Temporal keeps its execution)',
  ]);
});

test('bounds: limits, rates, sizes, durations and priority, each with the field named', (t) => {
  t.deepEqual(errorsOf({ concurrency: { limit: 0 } }), [
    'trigger.webhook.concurrency.limit: must be a whole number between 1 and 1000',
  ]);
  t.deepEqual(errorsOf({ throttle: {} }), [
    'trigger.webhook.throttle.perSecond: required (executions started per second, e.g. 2 or 0.5)',
  ]);
  t.deepEqual(errorsOf({ throttle: { perSecond: 0 } }), [
    'trigger.webhook.throttle.perSecond: must be more than 0 and at most 1000',
  ]);
  t.deepEqual(errorsOf({ throttle: { perSecond: 1, burst: 1.5 } }), [
    'trigger.webhook.throttle.burst: must be a whole number between 1 and 1000',
  ]);
  t.deepEqual(errorsOf({ debounce: { key: 'k', period: '500ms' } }), [
    'trigger.webhook.debounce.period: must be between 1s and 1d',
  ]);
  t.deepEqual(errorsOf({ debounce: { key: 'k', period: '1m', maxWait: '30s' } }), [
    'trigger.webhook.debounce.maxWait: must be at least the period (1m)',
  ]);
  t.deepEqual(errorsOf({ debounce: { key: '', period: '5 parsecs' } }), [
    'trigger.webhook.debounce.key: required (a formula such as "${Trigger.Payload.customerId}")',
    'trigger.webhook.debounce.period: "5 parsecs" is not a duration (at "5 parsecs"; use e.g. 5s, 1m30s, 250ms, 2h, 1d)',
  ]);
  t.deepEqual(errorsOf({ batch: { maxWait: '5s' } }), [
    'trigger.webhook.batch.maxSize: required (most calls in one batch, 1..100)',
  ]);
  t.deepEqual(errorsOf({ batch: { maxSize: 101 } }), [
    'trigger.webhook.batch.maxSize: must be a whole number between 1 and 100',
    'trigger.webhook.batch.maxWait: required (a duration such as 10s, 5m, 1h)',
  ]);
  t.deepEqual(errorsOf({ idempotencyKey: 'k', idempotencyWindow: '31d' }), [
    'trigger.webhook.idempotencyWindow: must be between 1m and 30d',
  ]);
  t.deepEqual(errorsOf({ priority: 6 }), ['trigger.webhook.priority: must be a whole number between 1 and 5']);
});

test('key formulas are checked like every formula, and read only what a call carries: Trigger and Company', (t) => {
  t.deepEqual(errorsOf({ concurrency: { key: '${Trigger.Paylod.x}' } }), [
    'trigger.webhook.concurrency.key: Formula "${Trigger.Paylod.x}" failed: "Trigger.Paylod" does not exist: Trigger has Payload, PayloadJson, Activity, Description, Body, BodyEncoding, Json, Form, Headers, Query, Method, Provider, Coalesced, Batch (did you mean "Trigger.Payload"?)',
  ]);
  t.regex(
    errorsOf({ throttle: { perSecond: 1, key: '${Steps.lookup.id}' } })[0]!,
    /^trigger\.webhook\.throttle\.key: .*"Steps" cannot be read here: a flow-control key is computed when the call arrives, before any step runs; it reads Trigger and Company/,
  );
  t.regex(
    errorsOf({ idempotencyKey: '${Execution.Id}' })[0]!,
    /^trigger\.webhook\.idempotencyKey: .*"Execution" cannot be read here/,
  );
  t.regex(errorsOf({ batch: { maxSize: 2, maxWait: '5s', key: '${(}' } })[0]!, /^trigger\.webhook\.batch\.key: /);
  t.deepEqual(errorsOf({ debounce: { key: '${Trigger.Coalesced.count}', period: '5s' } }), [
    "trigger.webhook.debounce.key: Trigger.Coalesced cannot be read here: it is filled after the call's key decided which execution the call joins",
  ]);
});

test('steps that read Trigger.Coalesced or Trigger.Batch without the control that fills it are warned about', (t) => {
  const steps = [{ log: { message: '${Trigger.Coalesced.count} ${Trigger.Batch[0].payload}' } }];
  t.deepEqual(validateFlow(flowWith({}, steps)).warnings, [
    'Trigger.Coalesced: only trigger.webhook.debounce fills it; without debounce it is empty at run time',
    'Trigger.Batch: only trigger.webhook.batch fills it; without batch it is empty at run time',
  ]);
  t.deepEqual(
    validateFlow(
      flowWith({ debounce: { key: 'k', period: '5s' } }, [{ log: { message: '${Trigger.Coalesced.count}' } }]),
    ).warnings,
    [],
  );
});

test('settings: defaults applied and durations in milliseconds', (t) => {
  t.deepEqual(resolveFlowControl({ activity: 'a' }), {});
  t.deepEqual(resolveFlowControl({ concurrency: {}, throttle: { perSecond: 2 }, idempotencyKey: 'k', priority: 2 }), {
    concurrency: { key: '', limit: 1 },
    throttle: { key: '', perSecond: 2, burst: 1 },
    idempotency: { key: 'k', windowMs: 86_400_000 },
    priority: 2,
  });
  t.deepEqual(
    resolveFlowControl({ debounce: { key: 'k', period: '10s', maxWait: '1m' }, batch: { maxSize: 5, maxWait: '30s' } }),
    {
      debounce: { key: 'k', periodMs: 10_000, maxWaitMs: 60_000 },
      batch: { key: '', maxSize: 5, maxWaitMs: 30_000 },
    },
  );
});

test('a debounce without maxWait is bounded all the same: ten periods, at most a day', (t) => {
  const maxWaitOf = (period: string) => resolveFlowControl({ debounce: { key: 'k', period } }).debounce?.maxWaitMs;
  t.is(maxWaitOf('1s'), 10_000);
  t.is(maxWaitOf('30s'), 300_000);
  t.is(maxWaitOf('3h'), 86_400_000, 'thirty hours would be more than a day');
  t.is(maxWaitOf('24h'), 86_400_000, 'the longest period: the bound is the period itself');
  t.deepEqual(
    validateFlow(flowWith({ debounce: { key: 'k', period: '24h' } })).errors,
    [],
    'the default always satisfies maxWait >= period',
  );
});
