// The static summary and details an execution shows in the Temporal UI: one
// line, Markdown that names cannot break, metadata only.
import test from 'ava';
import { executionDetails, executionSummary } from '../../engine/domain/executions/execution-summary.ts';
import { createCommands } from '../../engine/infrastructure/temporal/search-attributes.ts';
import type { FlowExecutionInput } from '../../flow/index.ts';

const input = (overrides: Partial<FlowExecutionInput['trigger']> = {}): FlowExecutionInput => ({
  company: 'Contoso & Co',
  flowName: 'order-intake',
  flowVersion: 3,
  steps: [],
  trigger: {
    activity: 'orders.new',
    description: 'Take *orders* from `the shop`',
    responseMode: 'WAIT_FOR_RESPONSE_STEP',
    syncTimeoutMs: 30_000,
    defaultResponse: { statusCode: 200, contentType: 'text/plain' },
    doNotLogPayload: false,
    ...overrides,
  } as FlowExecutionInput['trigger'],
  payloadJson: '{"card":"4111-SECRET"}',
  caller: 'app:erp-client',
});

test('the summary is one line: activity · company · flow and version · response mode', (t) => {
  t.is(executionSummary(input()), 'orders.new · Contoso & Co · order-intake v3 · wait for response');
  t.is(
    executionSummary(input({ responseMode: 'INSTANT_RETURN' })),
    'orders.new · Contoso & Co · order-intake v3 · instant return',
  );
});

test('the details name the trigger, caller, key and next steps, escape Markdown, and never the payload', (t) => {
  const details = executionDetails(input({ doNotLogPayload: true }), 'orders.new:key-abc', 'k`1');
  t.true(details.startsWith('**Take \\*orders\\* from \\`the shop\\`**'));
  t.regex(details, /caller: `app:erp-client`/);
  t.regex(details, /sync timeout 30 s/);
  t.regex(details, /idempotency key: set \(not shown: doNotLogPayload\)/);
  t.regex(executionDetails(input(), 'x', 'k`1'), /idempotency key: `k'1`/);
  t.regex(details, /payload: encrypted \(doNotLogPayload\)/);
  t.regex(details, /flowhook flow show 'Contoso & Co' order-intake/);
  t.false(details.includes('4111'));
  t.false(executionDetails(input(), 'x', undefined).includes('idempotency key'));
});

test('missing search attributes come with the exact commands that create them', (t) => {
  t.is(
    createCommands('prod', ['FlowVersion', 'FlowOutcome']),
    'temporal operator search-attribute create --namespace prod --name FlowVersion --type Int && temporal operator search-attribute create --namespace prod --name FlowOutcome --type Keyword',
  );
});
