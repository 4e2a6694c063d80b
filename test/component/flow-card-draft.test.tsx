// The flow card's draft: the rules of flow-draft.ts (the spec's defaults, the
// problems the card finds itself, the steps' outline and paths), and the card
// as a person uses it against an engine in memory — editing marks the draft,
// Save draft sends it, a refused field stops Publish before the engine is
// asked, the engine's publish problems are marked at their fields.
import { describe, expect, test } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { create } from '@bufbuild/protobuf';
import { ConsoleRole } from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import {
  FlowAdminService,
  FlowProblem_Severity,
  FlowProblemSchema,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { StepSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import FlowCardPage from '../../console/src/card/flow-card-page.tsx';
import {
  flatOutline,
  localProblems,
  newFlow,
  normalised,
  outline,
  STEP_KINDS,
  stepAt,
  withStepMoved,
  withTrigger,
} from '../../console/src/card/flow-draft.ts';
import { COMPANY, renderConsole } from './support/console-harness.tsx';
import { flowEngine, STORED_FLOW } from './support/flow-engine.ts';

describe('flow-draft', () => {
  test('a new flow starts with the trigger defaults of the spec and one Respond to Webhook step', () => {
    const flow = newFlow(COMPANY);
    expect(flow.trigger?.webhook).toMatchObject({
      responseMode: 'INSTANT_RETURN',
      defaultResponseStatusCode: 200,
      defaultResponseContentType: 'application/json',
    });
    expect(flatOutline(outline(flow.steps ?? [])).map((step) => step.kind)).toEqual(['respond']);
    expect(localProblems(flow).size).toBe(0);
  });

  test('the card refuses a 1xx status code and a Sync Timeout outside 1..600, the latter only while the caller waits', () => {
    const flow: FlowJson = { ...STORED_FLOW, steps: [{ respond: { statusCode: 150 } }] };
    expect(localProblems(flow).get('steps[0].respond.statusCode')).toBe(
      'Status Code 150 is refused: 1xx codes are not allowed (use 200..599).',
    );
    const waiting = withTrigger(STORED_FLOW, { responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 601 });
    expect(localProblems(waiting).get('trigger.webhook.syncTimeoutSeconds')).toBe(
      'Sync Timeout must be 1..600 seconds.',
    );
    expect(localProblems(withTrigger(waiting, { responseMode: 'INSTANT_RETURN' })).size).toBe(0);
  });

  test('a flow left unnamed is named after its activity, stored lowercase', () => {
    const flow = normalised(withTrigger({ ...STORED_FLOW, name: '' }, { activity: '  Shop.Refunds ' }));
    expect(flow.name).toBe('shop.refunds');
    expect(flow.trigger?.webhook?.activity).toBe('shop.refunds');
  });

  test("the outline names each step's kind and detail, if branches nested under their step, by the paths publish problems use", () => {
    const steps: FlowJson['steps'] = [
      {
        if: {
          condition: 'Trigger.Payload.paid',
          then: [{ httpRequest: { method: 'POST', url: 'https://erp.example.com/orders' } }],
          else: [],
        },
      },
      { respond: { statusCode: 201 } },
    ];
    expect(
      flatOutline(outline(steps)).map((step) => [step.path, step.kind && STEP_KINDS[step.kind], step.detail]),
    ).toEqual([
      ['steps[0]', 'If', 'Trigger.Payload.paid'],
      ['steps[0].if.then[0]', 'HTTP request', 'POST https://erp.example.com/orders'],
      ['steps[1]', 'Respond to Webhook', '201'],
    ]);
    const moved = withStepMoved({ steps }, 'steps[1]', -1);
    expect(moved.path).toBe('steps[0]');
    expect(stepAt(moved.flow, 'steps[1].if.then[0]')).toEqual(steps[0]!.if!.then![0]);
  });

  test('the card names every step kind the proto has, and no other', () => {
    const cases = StepSchema.oneofs.find((oneof) => oneof.name === 'kind')!.fields.map((field) => field.jsonName);
    expect(Object.keys(STEP_KINDS).sort()).toEqual(cases.sort());
  });
});

describe('the flow card', () => {
  test('editing a field marks the draft unsaved; Save draft sends the draft and says its new version', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderConsole(<FlowCardPage company={COMPANY} name="orders" />, { engine: flowEngine() });
    await screen.findByRole('heading', { level: 1, name: 'Flow orders' });
    expect(screen.getByText(`${COMPANY} · published v1 · latest v1`)).toBeTruthy();

    const description = screen.getByRole('textbox', { name: 'What the flow does' });
    await user.clear(description);
    await user.type(description, 'Takes and files orders');
    expect(screen.getByText(/· unsaved changes$/)).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Save draft' }));
    expect((await screen.findByRole('status')).textContent).toBe('Saved draft version 2.');
    const [applied] = page.requests(FlowAdminService.method.applyFlow);
    expect(applied?.publish).toBe(false);
    expect(applied?.flow?.description).toBe('Takes and files orders');
    // The flow is read again: the page shows the new version, and the draft is what the engine has.
    await waitFor(() => expect(screen.getByText(`${COMPANY} · published v1 · latest v2`)).toBeTruthy());
    expect(page.requests(FlowAdminService.method.getFlow).length).toBeGreaterThan(1);
  });

  test('a Respond Status Code of 150 is refused at the field, and Publish then asks the engine nothing', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderConsole(<FlowCardPage company={COMPANY} name="orders" />, { engine: flowEngine() });
    const statusCode = await screen.findByRole('textbox', { name: 'Status Code' });
    await user.clear(statusCode);
    await user.type(statusCode, '150');

    expect(statusCode.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('heading', { name: '1 problem to fix before publishing' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Publish' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Fix the marked fields first.');
    expect(page.requests(FlowAdminService.method.applyFlow)).toEqual([]);
  });

  test("the engine's publish problems are marked at the fields they name", async () => {
    const taken = create(FlowProblemSchema, {
      severity: FlowProblem_Severity.ERROR,
      fieldPath: 'trigger.webhook.activity',
      message: 'activity shop.orders is published by flow legacy-orders',
    });
    renderConsole(<FlowCardPage company={COMPANY} name="orders" />, {
      engine: flowEngine(STORED_FLOW, {
        problems: (flow) => (flow.trigger?.webhook?.activity === 'shop.orders' ? [taken] : []),
      }),
    });
    const problems = await screen.findByRole('heading', { name: '1 problem to fix before publishing' });
    expect(within(problems.closest('section')!).getByText(/published by flow legacy-orders/)).toBeTruthy();
    const activity = screen.getByRole('textbox', { name: 'Activity' });
    expect(activity.getAttribute('aria-invalid')).toBe('true');
  });

  test('a new flow is not published before it has a secret; saved, it is named after its activity and its card opens', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderConsole(<FlowCardPage company={COMPANY} />, {
      engine: flowEngine(),
      path: `/new-flow/${COMPANY}`,
    });
    await screen.findByRole('heading', { level: 1, name: 'New flow' });
    await user.type(screen.getByRole('textbox', { name: 'Activity' }), 'Shop.Refunds');

    await user.click(screen.getByRole('button', { name: 'Publish' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The Secret is missing: generate it, then publish.');
    expect(screen.getByText('Generate the secret first: the configuration is invalid until one is set.')).toBeTruthy();
    expect(page.requests(FlowAdminService.method.applyFlow)).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Save draft' }));
    await waitFor(() => expect(page.location().pathname).toBe(`/flows/${COMPANY}/shop.refunds`));
    const [applied] = page.requests(FlowAdminService.method.applyFlow);
    expect(applied?.flow?.name).toBe('shop.refunds');
    expect(applied?.publish).toBe(false);
  });

  test('a viewer reads the card but is offered no change', async () => {
    renderConsole(<FlowCardPage company={COMPANY} name="orders" />, { engine: flowEngine(), role: ConsoleRole.VIEWER });
    expect(
      await screen.findByText(`You can read this flow: changing it needs the editor role in ${COMPANY}.`),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save draft' })).toBeNull();
    expect(screen.getByRole('textbox', { name: 'What the flow does' }).hasAttribute('readonly')).toBe(true);
  });

  test('steps: the list names each kind; a Respond step is added and edited on its card, other kinds in the YAML tab', async () => {
    const user = userEvent.setup({ delay: null });
    const withRequest: FlowJson = {
      ...STORED_FLOW,
      steps: [{ httpRequest: { method: 'POST', url: 'https://erp.example.com/orders' } }, ...(STORED_FLOW.steps ?? [])],
    };
    renderConsole(<FlowCardPage company={COMPANY} name="orders" />, { engine: flowEngine(withRequest) });
    const section = await screen.findByRole('region', { name: 'Steps' });
    await user.click(within(section).getByRole('button', { name: /^HTTP request/ }));
    expect(within(section).getByText(/HTTP request steps are edited in the YAML tab\./)).toBeTruthy();

    await user.click(within(section).getByRole('button', { name: 'Add Respond to Webhook step' }));
    expect(within(section).getAllByRole('button', { name: /^Respond to Webhook/ })).toHaveLength(2);
    expect(within(section).getByText('steps[2]')).toBeTruthy();
    expect(screen.getByText(/· unsaved changes$/)).toBeTruthy();
  });
});
