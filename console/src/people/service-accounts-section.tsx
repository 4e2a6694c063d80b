// Service accounts: the engine's own callers (the facade, the CLI, internal
// services), each with a scope — invoke (for the companies it names), records
// or admin — and a token shown once when it is created or rotated.
import { useState } from 'react';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  ServiceAccountAdminService,
  type ServiceAccountInfo,
} from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { ActionForm } from '../ui/action-buttons.tsx';
import { CheckboxField, NameOptions, SelectField, TextField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import type { SectionProps } from '../ui/page.tsx';
import { TableSection } from '../ui/table-section.tsx';
import { ServiceAccountActions, tokenReveal } from './service-account-actions.tsx';

/** The scopes of an account, with what each lets it do. */
const SCOPES = { invoke: 'calls flows', records: 'feeds record tables', admin: 'every admin service' };
const SCOPE_HINT = `${Object.entries(SCOPES)
  .map(([scope, does]) => `${scope}: ${does}`)
  .join('; ')}.`;

export function ServiceAccountsSection(section: SectionProps) {
  const list = useQuery(ServiceAccountAdminService.method.listServiceAccounts, {});
  return (
    <TableSection
      id="accounts-title"
      title="Service accounts"
      intro="The engine's own callers (the facade, the CLI, internal services), each with a scope and a bearer token."
      form={section.mayChange ? <NewServiceAccount actions={section.actions} /> : null}
      read={list}
      rowsOf={(data) => data.accounts}
      columns={['Name', 'Scope', 'Companies', 'State', 'Token', section.mayChange && 'Actions']}
    >
      {(account) => <AccountRow key={account.name} account={account} {...section} />}
    </TableSection>
  );
}

function AccountRow({ account, actions, mayChange }: { account: ServiceAccountInfo } & SectionProps) {
  const changed = account.rotatedAt ?? account.createdAt;
  return (
    <tr>
      <th scope="row">{account.name}</th>
      <td>
        {account.scope}
        {account.forwardsCallers ? ' (forwards callers)' : ''}
      </td>
      <td>
        {account.scope === 'admin'
          ? '—'
          : account.allCompanies
            ? 'every company'
            : account.companies.join(', ') || 'none'}
      </td>
      <td>{account.enabled ? 'Enabled' : 'Disabled'}</td>
      <td>
        <code>{account.tokenHint}</code>
        {changed ? ` since ${timestampDate(changed).toLocaleString()}` : ''}
      </td>
      {mayChange ? (
        <td className="row-actions">
          <ServiceAccountActions account={account} actions={actions} />
        </td>
      ) : null}
    </tr>
  );
}

function NewServiceAccount({ actions }: { actions: PageActions }) {
  const create = useMutation(ServiceAccountAdminService.method.createServiceAccount);
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const [name, setName] = useState('');
  const [scope, setScope] = useState<string>('invoke');
  const [chosen, setChosen] = useState<string[]>([]);
  const [allCompanies, setAllCompanies] = useState(false);
  const [forwardsCallers, setForwardsCallers] = useState(false);
  const boundToCompanies = scope !== 'admin';
  const createAccount = async () => {
    const answer = await create.mutateAsync({
      name,
      scope,
      companies: boundToCompanies && !allCompanies ? chosen : [],
      allCompanies: boundToCompanies && allCompanies,
      forwardsCallers: scope === 'invoke' && forwardsCallers,
    });
    return { done: `Service account ${name} created (${scope}).`, reveal: tokenReveal(name, answer.token) };
  };
  return (
    <ActionForm
      className="inline-form"
      aria-label="New service account"
      actions={actions}
      run={createAccount}
      onDone={() => setName('')}
    >
      <TextField label="Account name" value={name} onValue={setName} required autoComplete="off" />
      <SelectField label="Scope" value={scope} onValue={setScope} hint={SCOPE_HINT}>
        <NameOptions names={Object.keys(SCOPES)} />
      </SelectField>
      {boundToCompanies ? (
        <fieldset className="companies">
          <legend>Companies</legend>
          <CheckboxField label="All companies" checked={allCompanies} onChecked={setAllCompanies} />
          {allCompanies
            ? null
            : (companies.data?.companies ?? []).map((company) => (
                <CheckboxField
                  key={company.name}
                  label={company.name}
                  checked={chosen.includes(company.name)}
                  onChange={(event) =>
                    setChosen(
                      event.target.checked
                        ? [...chosen, company.name]
                        : chosen.filter((other) => other !== company.name),
                    )
                  }
                />
              ))}
        </fieldset>
      ) : null}
      {scope === 'invoke' ? (
        <CheckboxField label="Forwards callers (the facade)" checked={forwardsCallers} onChecked={setForwardsCallers} />
      ) : null}
      <button type="submit">Create service account</button>
    </ActionForm>
  );
}
