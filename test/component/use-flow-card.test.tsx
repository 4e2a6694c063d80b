// useFlowCard, the card's state and actions, against an engine in memory: the
// draft loads from GetFlow and is dirty only when it differs from it; Save
// draft and Publish send the normalised draft and read the flow again — the
// flow's reads only, not every cached answer; a publish the engine's check
// refuses, or a refused save, is said and changes nothing; Rotate Secret shows
// the new secret once; Unpublish says so.
import { expect, test } from 'vitest';
import { act, renderHook, screen, waitFor } from '@testing-library/react';
import { create } from '@bufbuild/protobuf';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import {
  FlowAdminService,
  FlowProblem_Severity,
  FlowProblemSchema,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { useFlowCard } from '../../console/src/card/use-flow-card.ts';
import { withTrigger } from '../../console/src/card/flow-draft.ts';
import { COMPANY, consoleHarness, type HarnessOptions } from './support/console-harness.tsx';
import { flowEngine, ROTATED_SECRET, STORED_FLOW, type FlowEngineOptions } from './support/flow-engine.ts';

/** The hook on the stored flow, beside another page's cached read (the executions of the company). */
async function openCard(
  options: Omit<Partial<HarnessOptions>, 'engine'> & { flows?: FlowEngineOptions; name?: string } = {},
) {
  const harness = consoleHarness({
    ...options,
    engine: (router) => {
      flowEngine(STORED_FLOW, options.flows)(router);
      router.service(ExecutionService, { listExecutions: () => ({ executions: [] }) });
    },
  });
  const name = 'name' in options ? options.name : 'orders';
  const hook = renderHook(
    () => ({
      card: useFlowCard(COMPANY, name),
      executions: useQuery(ExecutionService.method.listExecutions, { company: COMPANY }),
    }),
    {
      wrapper: harness.wrapper,
    },
  );
  await waitFor(() => expect(hook.result.current.card.draft).toBeDefined());
  await waitFor(() => expect(hook.result.current.executions.data).toBeDefined());
  return { ...harness, card: () => hook.result.current.card };
}

test('the draft is the stored flow, dirty only while it differs from it', async () => {
  const { card } = await openCard();
  expect(card().draft).toMatchObject({ name: 'orders', description: 'Takes orders' });
  expect(card()).toMatchObject({ dirty: false, published: true, activity: 'shop.orders', secret: { hasSecret: true } });

  act(() => card().edit({ ...card().draft!, description: 'Takes and files orders' }));
  expect(card().dirty).toBe(true);
  act(() => card().edit({ ...card().draft!, description: 'Takes orders' }));
  expect(card().dirty).toBe(false);
});

test("Save draft sends the normalised draft, then reads the flow again and no other service's answers", async () => {
  const engine = await openCard();
  const { card } = engine;
  act(() => card().edit(withTrigger(card().draft!, { activity: ' Shop.Orders.V2 ' })));
  await act(() => card().save(false));

  const [applied] = engine.requests(FlowAdminService.method.applyFlow);
  expect(applied?.publish).toBe(false);
  expect(applied?.flow?.trigger?.kind.value?.activity).toBe('shop.orders.v2');
  expect(card().notice).toEqual({ kind: 'done', text: 'Saved draft version 2.' });
  await waitFor(() => expect(engine.requests(FlowAdminService.method.getFlow)).toHaveLength(2));
  expect(engine.requests(ExecutionService.method.listExecutions)).toHaveLength(1);
  expect(card().dirty).toBe(false);
});

test("Publish asks the engine's check first: with an error it publishes nothing and says how many problems there are", async () => {
  const refused = create(FlowProblemSchema, {
    severity: FlowProblem_Severity.ERROR,
    fieldPath: 'steps[0].respond.body',
    message: 'not valid JSONata',
  });
  const engine = await openCard({ flows: { problems: (flow) => (flow.description === 'broken' ? [refused] : []) } });
  act(() => engine.card().edit({ ...engine.card().draft!, description: 'broken' }));
  await act(() => engine.card().save(true));

  expect(engine.card().notice).toEqual({
    kind: 'problem',
    text: 'Not published: 1 problem to fix (marked at their fields).',
  });
  expect(engine.card().problemOf('steps[0].respond.body')).toBe('not valid JSONata');
  expect(engine.requests(FlowAdminService.method.applyFlow)).toEqual([]);
});

test('Publish without problems publishes the draft as a new version', async () => {
  const engine = await openCard();
  await act(() => engine.card().save(true));
  const [applied] = engine.requests(FlowAdminService.method.applyFlow);
  expect(applied?.publish).toBe(true);
  expect(engine.card().notice).toEqual({ kind: 'done', text: 'Published version 2.' });
});

test("a save the engine refuses says the engine's reason and keeps the draft", async () => {
  const engine = await openCard({ flows: { refuseApply: 'changing flows needs the editor role in Default' } });
  act(() => engine.card().edit({ ...engine.card().draft!, description: 'Takes and files orders' }));
  await act(() => engine.card().save(false));
  expect(engine.card().notice).toEqual({
    kind: 'problem',
    text: 'Not saved: changing flows needs the editor role in Default',
  });
  expect(engine.card().dirty).toBe(true);
});

test('Rotate Secret shows the new secret once, in a dialog; Unpublish says the endpoint no longer reaches the flow', async () => {
  const engine = await openCard();
  await act(() => engine.card().rotateSecret());
  expect(engine.requests(FlowAdminService.method.rotateSecret)).toEqual([
    expect.objectContaining({ company: COMPANY, name: 'orders' }),
  ]);
  const dialog = await screen.findByRole('dialog', { name: 'Webhook secret' });
  expect(dialog.textContent).toContain(ROTATED_SECRET);
  expect(dialog.textContent).toContain('The secret was rotated: the old one stopped working.');

  await act(() => engine.card().unpublishFlow());
  expect(engine.card().notice).toEqual({
    kind: 'done',
    text: 'Unpublished: the endpoint no longer reaches this flow.',
  });
  await waitFor(() => expect(engine.card().published).toBe(false));
});

test('a new flow saved for the first time opens its own card, the outcome said there', async () => {
  const engine = await openCard({ name: undefined, path: `/new-flow/${COMPANY}` });
  expect(engine.card()).toMatchObject({ isNew: true, dirty: true });
  act(() => engine.card().edit(withTrigger(engine.card().draft!, { activity: 'Shop.Refunds' })));
  await act(() => engine.card().save(false));
  expect(engine.location().pathname).toBe(`/flows/${COMPANY}/shop.refunds`);
  expect(engine.location().state).toEqual({ notice: { kind: 'done', text: 'Saved draft version 2.' } });
});
