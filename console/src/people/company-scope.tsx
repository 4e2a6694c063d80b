// Where a permission set holds: one company, or every company — said out loud
// (the engine never reads silence as "every company"). The choices are the
// companies the person sees.
import { useQuery } from '@connectrpc/connect-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { NameOptions, SelectField } from '../ui/field.tsx';

/** The select's value for "every company": no company is called that (names are never empty). */
export const ALL_COMPANIES = '';

export interface CompanyScope {
  company: string;
  allCompanies: boolean;
}

export function scopeOf(value: string): CompanyScope {
  return value === ALL_COMPANIES ? { company: '', allCompanies: true } : { company: value, allCompanies: false };
}

export function CompanyScopeField({
  label,
  value,
  onChange,
  hint,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  hint?: string;
}) {
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  return (
    <SelectField label={label} value={value} onValue={onChange} hint={hint}>
      <NameOptions names={(companies.data?.companies ?? []).map((company) => company.name)} />
      <option value={ALL_COMPANIES}>All companies (also ones created later)</option>
    </SelectField>
  );
}

/** The first company the person sees: the scope a form starts with (never "all" by default). */
export function useFirstCompany(): string {
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  return companies.data?.companies[0]?.name ?? '';
}

/** "FLOW ALL in Default", "SUPER in every company". */
export function scopeText(permissionSet: string, company: string): string {
  return `${permissionSet} in ${company === '' ? 'every company' : company}`;
}
