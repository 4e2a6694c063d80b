// The audit log's filters, kept in the address (?person=&action=&company=&since=&until=)
// so a filtered view can be reloaded and shared; none of them is ever a secret.
import { useSearchParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { NameOptions, SelectField, TextField } from '../ui/field.tsx';

export interface AuditFilter {
  person: string;
  action: string;
  company: string;
  /** datetime-local values, the browser's own time zone. */
  since: string;
  until: string;
}

const KEYS = ['person', 'action', 'company', 'since', 'until'] as const;

/** The kinds of action the audit log records (engine/edges/rpc/audited-methods.ts): a kind matches each of its actions. */
const ACTION_KINDS = [
  'flow',
  'webhook-secret',
  'company',
  'connection',
  'hook-secret',
  'user',
  'app',
  'service-account',
  'execution',
  'secret-store',
];

export function useAuditFilter(): [AuditFilter, (change: Partial<AuditFilter>) => void] {
  const [params, setParams] = useSearchParams();
  const filter = Object.fromEntries(KEYS.map((key) => [key, params.get(key) ?? ''])) as unknown as AuditFilter;
  const change = (update: Partial<AuditFilter>) => {
    const next = { ...filter, ...update };
    setParams(Object.fromEntries(KEYS.filter((key) => next[key] !== '').map((key) => [key, next[key]])), {
      replace: true,
    });
  };
  return [filter, change];
}

export function AuditFilters({
  filter,
  onChange,
}: {
  filter: AuditFilter;
  onChange(change: Partial<AuditFilter>): void;
}) {
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  return (
    <form
      className="inline-form filters"
      aria-label="Filter the audit log"
      onSubmit={(event) => event.preventDefault()}
    >
      <TextField
        label="Person"
        type="search"
        value={filter.person}
        onValue={(person) => onChange({ person })}
        hint="As the console names them, exactly."
      />
      <TextField
        label="Action"
        type="search"
        list="audit-action-kinds"
        value={filter.action}
        onValue={(action) => onChange({ action })}
        hint="An action (user.create) or its kind (user)."
      />
      <datalist id="audit-action-kinds">
        {ACTION_KINDS.map((kind) => (
          <option key={kind} value={kind} />
        ))}
      </datalist>
      <SelectField label="Company" value={filter.company} onValue={(company) => onChange({ company })}>
        <option value="">All companies</option>
        <NameOptions names={(companies.data?.companies ?? []).map((company) => company.name)} />
      </SelectField>
      <TextField label="From" type="datetime-local" value={filter.since} onValue={(since) => onChange({ since })} />
      <TextField label="Until" type="datetime-local" value={filter.until} onValue={(until) => onChange({ until })} />
    </form>
  );
}
