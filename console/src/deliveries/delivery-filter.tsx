// The delivery log's filters, kept in the address (?outcome=&reason=&caller=&activity=&since=&until=)
// so a filtered view can be reloaded and shared; none of them is ever a secret.
import { useSearchParams } from 'react-router';
import { SelectField, TextField } from '../ui/field.tsx';

export interface DeliveryFilter {
  outcome: string;
  reason: string;
  caller: string;
  activity: string;
  /** datetime-local values, the browser's own time zone. */
  since: string;
  until: string;
}

const KEYS = ['outcome', 'reason', 'caller', 'activity', 'since', 'until'] as const;

/** The reasons an operator looks for most (docs/reference/refusal-reasons.md and the status table have them all). */
const COMMON_REASONS = [
  'secret_mismatch',
  'signature_mismatch',
  'missing_credentials',
  'bad_key',
  'unknown_user',
  'missing_permission_set',
  'rate_limited',
  'not_found',
  'bad_request',
  'payload_too_large',
  'unavailable',
  'internal_error',
];

export function useDeliveryFilter(): [DeliveryFilter, (change: Partial<DeliveryFilter>) => void] {
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(KEYS.map((key) => [key, params.get(key) ?? ''])) as unknown as DeliveryFilter;
  const change = (update: Partial<DeliveryFilter>) => {
    const next = { ...filter, ...update };
    setParams(Object.fromEntries(KEYS.filter((key) => next[key] !== '').map((key) => [key, next[key]])), {
      replace: true,
    });
  };
  return [filter, change];
}

export function DeliveryFilters({
  filter,
  onChange,
}: {
  filter: DeliveryFilter;
  onChange(change: Partial<DeliveryFilter>): void;
}) {
  return (
    <form
      className="inline-form filters"
      aria-label="Filter the deliveries"
      onSubmit={(event) => event.preventDefault()}
    >
      <SelectField label="Outcome" value={filter.outcome} onValue={(outcome) => onChange({ outcome })}>
        <option value="">Any outcome</option>
        <option value="accepted">Accepted</option>
        <option value="refused">Refused (4xx)</option>
        <option value="failed">Failed (5xx, caller gone)</option>
      </SelectField>
      <TextField
        label="Reason"
        type="search"
        list="delivery-reasons"
        value={filter.reason}
        onValue={(reason) => onChange({ reason })}
        hint="A refusal reason or status code name, exactly."
      />
      <datalist id="delivery-reasons">
        {COMMON_REASONS.map((reason) => (
          <option key={reason} value={reason} />
        ))}
      </datalist>
      <TextField
        label="Caller"
        type="search"
        value={filter.caller}
        onValue={(caller) => onChange({ caller })}
        hint="user:<name> or app:<client id>, exactly."
      />
      <TextField
        label="Activity"
        type="search"
        value={filter.activity}
        onValue={(activity) => onChange({ activity })}
      />
      <TextField label="From" type="datetime-local" value={filter.since} onValue={(since) => onChange({ since })} />
      <TextField label="Until" type="datetime-local" value={filter.until} onValue={(until) => onChange({ until })} />
    </form>
  );
}
