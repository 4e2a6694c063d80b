// The execution list's filter: kept in the address (execution-filter.ts), the
// fields that change it (execution-filter-form.tsx), and the ListExecutions
// request the list then sends an engine in memory — once typing pauses, and
// none while a field is refused.
import { describe, expect, test, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ExecutionService } from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  filterFromSearch,
  filterProblems,
  listRequest,
  RERUNNABLE,
  rerunRequest,
  searchOf,
  type ExecutionFilter,
} from '../../console/src/executions/execution-filter.ts';
import { ExecutionFilterForm } from '../../console/src/executions/execution-filter-form.tsx';
import ExecutionsPage from '../../console/src/executions/executions-page.tsx';
import { COMPANY, consoleHarness, renderConsole } from './support/console-harness.tsx';

const EMPTY: ExecutionFilter = {
  company: COMPANY,
  flow: '',
  activity: '',
  version: '',
  outcome: '',
  statuses: [],
  since: '',
  until: '',
  caller: '',
  key: '',
};

describe('execution-filter', () => {
  test('the address holds only what is set, in a fixed order, and reads back as the same filter', () => {
    const filter: ExecutionFilter = {
      ...EMPTY,
      flow: 'orders',
      statuses: ['FAILED', 'TIMED_OUT'],
      caller: 'user:shop',
      key: 'INV-7',
    };
    expect(searchOf(filter)).toBe('company=Default&flow=orders&caller=user%3Ashop&key=INV-7&status=FAILED%2CTIMED_OUT');
    expect(filterFromSearch(new URLSearchParams(searchOf(filter)))).toEqual(filter);
    expect(filterFromSearch(new URLSearchParams('company=Default&status=FAILED,ASLEEP')).statuses).toEqual(['FAILED']);
  });

  test('a person is told at the field what the engine would refuse', () => {
    expect(filterProblems({ ...EMPTY, version: '0' })).toEqual({ version: 'A version is a whole number from 1.' });
    expect(filterProblems({ ...EMPTY, since: 'yesterday' })).toEqual({ since: 'Not a date and time.' });
    expect(filterProblems({ ...EMPTY, since: '2026-03-02T10:00:00Z', until: '2026-03-01T10:00:00Z' })).toEqual({
      until: 'Must be after From.',
    });
    expect(
      filterProblems({ ...EMPTY, version: '3', since: '2026-03-01T10:00:00Z', until: '2026-03-02T10:00:00Z' }),
    ).toEqual({});
  });

  test('the list and a bulk re-run ask for what the filter selects; a re-run only for closed executions', () => {
    const filter: ExecutionFilter = {
      ...EMPTY,
      flow: 'orders',
      version: '3',
      statuses: ['RUNNING', 'FAILED'],
      since: '2026-03-01T10:00:00.000Z',
    };
    expect(listRequest(filter, 200)).toEqual({
      company: COMPANY,
      flowName: 'orders',
      activity: '',
      flowVersion: 3,
      outcome: '',
      statuses: ['RUNNING', 'FAILED'],
      since: timestampFromDate(new Date('2026-03-01T10:00:00.000Z')),
      until: undefined,
      caller: '',
      key: '',
      limit: 200,
    });
    expect(rerunRequest(filter, true)).toMatchObject({ statuses: ['FAILED'], dryRun: true, maxCount: 1000 });
    expect(rerunRequest({ ...filter, statuses: [] }, false).statuses).toEqual(RERUNNABLE);
    expect(rerunRequest(filter, true)).not.toHaveProperty('limit');
  });
});

/** The engine's side: the company's flows, and its executions of one flow or all. */
function executionsEngine(router: Parameters<Parameters<typeof consoleHarness>[0]['engine']>[0]) {
  router.service(FlowAdminService, { listFlows: () => ({ flows: [{ name: 'orders' }, { name: 'refunds' }] }) });
  router.service(ExecutionService, {
    listExecutions: (request) => ({
      executions: [
        {
          executionId: 'orders:1',
          company: COMPANY,
          flowName: 'orders',
          flowVersion: 1,
          status: 'COMPLETED',
          outcome: 'responded',
        },
        {
          executionId: 'refunds:1',
          company: COMPANY,
          flowName: 'refunds',
          flowVersion: 2,
          status: 'FAILED',
          outcome: 'failed',
        },
      ].filter((execution) => request.flowName === '' || execution.flowName === request.flowName),
    }),
  });
}

describe('the filter form', () => {
  test("offers the company's flows, and hands every change on as a whole filter", async () => {
    const user = userEvent.setup({ delay: null });
    const onChange = vi.fn<(filter: ExecutionFilter) => void>();
    const harness = consoleHarness({ engine: executionsEngine });
    render(
      <ExecutionFilterForm
        filter={{ ...EMPTY, statuses: ['RUNNING'] }}
        problems={{ version: 'A version is a whole number from 1.' }}
        onChange={onChange}
      />,
      {
        wrapper: harness.wrapper,
      },
    );
    const flow = await screen.findByRole('combobox', { name: 'Flow' });
    await waitFor(() =>
      expect(
        within(flow)
          .getAllByRole('option')
          .map((option) => option.textContent),
      ).toEqual(['Any flow', 'orders', 'refunds']),
    );

    await user.selectOptions(flow, 'refunds');
    expect(onChange).toHaveBeenLastCalledWith({ ...EMPTY, statuses: ['RUNNING'], flow: 'refunds' });
    await user.click(screen.getByRole('checkbox', { name: 'Failed' }));
    expect(onChange).toHaveBeenLastCalledWith({ ...EMPTY, statuses: ['RUNNING', 'FAILED'] });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-01T10:30' } });
    expect(onChange).toHaveBeenLastCalledWith({
      ...EMPTY,
      statuses: ['RUNNING'],
      until: new Date('2026-03-01T10:30').toISOString(),
    });
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(onChange).toHaveBeenLastCalledWith(EMPTY);

    const version = screen.getByRole('textbox', { name: 'Version' });
    expect(version.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('A version is a whole number from 1.').id).toBe(version.getAttribute('aria-describedby'));
  });
});

describe('the execution list', () => {
  test('asks the engine for what the filter says once typing pauses, shows what it answers, and keeps the filter in the address', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderConsole(<ExecutionsPage />, {
      engine: executionsEngine,
      path: `/executions?company=${COMPANY}`,
    });
    await screen.findByRole('heading', { level: 1, name: `Executions of ${COMPANY}` });
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('2 executions'));
    expect(page.requests(ExecutionService.method.listExecutions)[0]).toMatchObject({
      company: COMPANY,
      flowName: '',
      limit: 200,
    });

    await user.selectOptions(await screen.findByRole('combobox', { name: 'Flow' }), 'refunds');
    await user.click(screen.getByRole('checkbox', { name: 'Failed' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('1 execution'));
    expect(page.requests(ExecutionService.method.listExecutions).at(-1)).toMatchObject({
      company: COMPANY,
      flowName: 'refunds',
      statuses: ['FAILED'],
    });
    expect(screen.getByRole('link', { name: 'refunds:1' }).getAttribute('href')).toBe('/executions/refunds%3A1');
    expect(page.location().search).toBe(`?company=${COMPANY}&flow=refunds&status=FAILED`);
  });

  test('a refused field is marked and asks the engine nothing until it is fixed', async () => {
    const user = userEvent.setup({ delay: null });
    const page = renderConsole(<ExecutionsPage />, {
      engine: executionsEngine,
      path: `/executions?company=${COMPANY}`,
    });
    const version = await screen.findByRole('textbox', { name: 'Version' });
    await waitFor(() => expect(page.requests(ExecutionService.method.listExecutions)).toHaveLength(1));

    await user.type(version, 'x');
    expect(await screen.findByText('A version is a whole number from 1.')).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 500)); // past the list's pause for typing: still nothing asked
    expect(page.requests(ExecutionService.method.listExecutions)).toHaveLength(1);

    await user.clear(version);
    await user.type(version, '2');
    await waitFor(() =>
      expect(page.requests(ExecutionService.method.listExecutions).at(-1)).toMatchObject({ flowVersion: 2 }),
    );
  });
});
