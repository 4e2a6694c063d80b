// The execution log's first line is the trigger with its Description (it says
// what triggered the flow, so it belongs in the execution history), also for
// doNotLogPayload flows, whose step notes are withheld.
import test from 'ava';
import { ExecutionLog, NOTE_WITHHELD } from '../../workflows/interpreter/execution-log.ts';
import type { FlowExecutionInput } from '../../flow/index.ts';

const trigger = (overrides: Partial<FlowExecutionInput['trigger']> = {}): FlowExecutionInput['trigger'] => ({
  activity: 'payments.provider.callback',
  description: 'Payment provider posts a payment status',
  responseMode: 'WAIT_FOR_RESPONSE_STEP',
  syncTimeoutMs: 30_000,
  defaultResponse: { statusCode: 200, contentType: 'application/json' },
  doNotLogPayload: false,
  ...overrides,
});

test('the trigger line carries the description, activity and response mode', (t) => {
  const log = new ExecutionLog();
  log.recordTrigger(trigger(), '2026-11-23T10:00:00.000Z');
  t.deepEqual(log.entries, [
    {
      path: 'trigger',
      type: 'webhook',
      name: '',
      description: 'Payment provider posts a payment status',
      status: 'completed',
      startedAt: '2026-11-23T10:00:00.000Z',
      finishedAt: '2026-11-23T10:00:00.000Z',
      note: 'activity payments.provider.callback · wait for response',
    },
  ]);
});

test('doNotLogPayload withholds step notes but keeps the trigger line (metadata, not payload)', (t) => {
  const log = new ExecutionLog(true);
  log.recordTrigger(trigger({ doNotLogPayload: true, responseMode: 'INSTANT_RETURN' }), '2026-11-23T10:00:00.000Z');
  log.record(
    { path: 'steps[0]', type: 'log', name: '', description: 'Note it', startedAt: '2026-11-23T10:00:00.000Z' },
    'completed',
    'card 4111',
  );
  t.is(log.entries[0]!.description, 'Payment provider posts a payment status');
  t.is(log.entries[0]!.note, 'activity payments.provider.callback · instant return');
  t.is(log.entries[1]!.note, NOTE_WITHHELD);
});
