// The execution list's filter fields. Every change goes straight to the
// address (the page reads the filter from there); the company is the header's.
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { NameOptions, SelectField, TextField } from '../ui/field.tsx';
import { OUTCOMES, STATUSES, type ExecutionFilter } from './execution-filter.ts';
import { isoFromLocalInput, localInputValue } from './format.ts';

/** The time range's two ends, in the browser's time zone. */
const TIME_BOUNDS = [
  { label: 'From', key: 'since' },
  { label: 'To', key: 'until' },
] as const;

interface Props {
  filter: ExecutionFilter;
  problems: Partial<Record<keyof ExecutionFilter, string>>;
  onChange(filter: ExecutionFilter): void;
}

export function ExecutionFilterForm({ filter, problems, onChange }: Props) {
  const flows = useQuery(
    FlowAdminService.method.listFlows,
    { company: filter.company },
    { enabled: filter.company !== '' },
  );
  const set = (change: Partial<ExecutionFilter>) => onChange({ ...filter, ...change });
  const toggle = (status: string, on: boolean) =>
    set({ statuses: on ? [...filter.statuses, status] : filter.statuses.filter((other) => other !== status) });
  return (
    <form className="filters card" aria-label="Filter executions" onSubmit={(event) => event.preventDefault()}>
      <div className="filter-grid">
        <SelectField label="Flow" value={filter.flow} onValue={(flow) => set({ flow })}>
          <option value="">Any flow</option>
          <NameOptions names={(flows.data?.flows ?? []).map((flow) => flow.name)} />
          {filter.flow && !flows.data?.flows.some((flow) => flow.name === filter.flow) ? (
            <option value={filter.flow}>{filter.flow}</option>
          ) : null}
        </SelectField>
        <TextField label="Activity" value={filter.activity} onValue={(activity) => set({ activity })} />
        <TextField
          label="Version"
          inputMode="numeric"
          value={filter.version}
          problem={problems.version}
          onValue={(version) => set({ version: version.trim() })}
        />
        <SelectField label="Outcome" value={filter.outcome} onValue={(outcome) => set({ outcome })}>
          <option value="">Any outcome</option>
          {OUTCOMES.map((outcome) => (
            <option key={outcome.value} value={outcome.value}>
              {outcome.label}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Caller"
          value={filter.caller}
          placeholder="user:name"
          onValue={(caller) => set({ caller: caller.trim() })}
        />
        <TextField label="Flow control key" value={filter.key} placeholder="INV-7" onValue={(key) => set({ key })} />
        {TIME_BOUNDS.map(({ label, key }) => (
          <TextField
            key={key}
            label={label}
            type="datetime-local"
            value={localInputValue(filter[key])}
            problem={problems[key]}
            onChange={(event) => set({ [key]: isoFromLocalInput(event.target.value) })}
          />
        ))}
      </div>
      <fieldset className="statuses">
        <legend>Status</legend>
        {STATUSES.map((status) => (
          <label key={status.value}>
            <input
              type="checkbox"
              checked={filter.statuses.includes(status.value)}
              onChange={(event) => toggle(status.value, event.target.checked)}
            />{' '}
            {status.label}
          </label>
        ))}
      </fieldset>
      <button
        type="button"
        className="secondary small"
        onClick={() => onChange({ ...emptyFilter(), company: filter.company })}
      >
        Clear filters
      </button>
    </form>
  );
}

function emptyFilter(): ExecutionFilter {
  return {
    company: '',
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
}
