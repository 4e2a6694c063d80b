// Service accounts: the engine's own callers (the facade, the CLI, internal
// services), each with a scope — invoke (for the companies it names), records
// or admin — and a token shown once when it is created or rotated.
import { useState } from 'react';
import { createClient } from '@connectrpc/connect';
import { useQuery } from '@connectrpc/connect-query';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { ServiceAccountAdminService, type ServiceAccountInfo } from '../../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { transport } from '../rpc/transport.ts';
import { CheckboxField, SelectField, TextField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { ServiceAccountActions, tokenReveal } from './service-account-actions.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';

const accounts = createClient(ServiceAccountAdminService, transport);

const SCOPES = ['invoke', 'records', 'admin'] as const;

export function ServiceAccountsSection({ actions, mayChange }: { actions: PageActions; mayChange: boolean }) {
  const list = useQuery(ServiceAccountAdminService.method.listServiceAccounts, {});
  return (
    <section aria-labelledby="accounts-title" className="people-section">
      <h2 id="accounts-title">Service accounts</h2>
      <p className="muted">The engine&apos;s own callers (the facade, the CLI, internal services), each with a scope and a bearer token.</p>
      {mayChange ? <NewServiceAccount actions={actions} /> : null}
      {list.isPending ? <Loading what="the service accounts" /> : null}
      {list.isError ? <LoadProblem what="the service accounts" error={list.error} /> : null}
      {list.data && list.data.accounts.length > 0 ? (
        <table>
          <caption className="visually-hidden">Service accounts</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Companies</th>
              <th scope="col">State</th>
              <th scope="col">Token</th>
              {mayChange ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {list.data.accounts.map((account) => (
              <AccountRow key={account.name} account={account} actions={actions} mayChange={mayChange} />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function AccountRow({ account, actions, mayChange }: { account: ServiceAccountInfo; actions: PageActions; mayChange: boolean }) {
  const changed = account.rotatedAt ?? account.createdAt;
  return (
    <tr>
      <th scope="row">{account.name}</th>
      <td>
        {account.scope}
        {account.forwardsCallers ? ' (forwards callers)' : ''}
      </td>
      <td>{account.scope === 'admin' ? '—' : account.allCompanies ? 'every company' : account.companies.join(', ') || 'none'}</td>
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
  const companies = useQuery(FlowAdminService.method.listCompanies, {});
  const [name, setName] = useState('');
  const [scope, setScope] = useState<string>('invoke');
  const [chosen, setChosen] = useState<string[]>([]);
  const [allCompanies, setAllCompanies] = useState(false);
  const [forwardsCallers, setForwardsCallers] = useState(false);
  const boundToCompanies = scope !== 'admin';
  return (
    <form
      className="inline-form"
      aria-label="New service account"
      onSubmit={(event) => {
        event.preventDefault();
        void actions
          .run(async () => {
            const answer = await accounts.createServiceAccount({
              name,
              scope,
              companies: boundToCompanies && !allCompanies ? chosen : [],
              allCompanies: boundToCompanies && allCompanies,
              forwardsCallers: scope === 'invoke' && forwardsCallers,
            });
            return { done: `Service account ${name} created (${scope}).`, reveal: tokenReveal(name, answer.token) };
          })
          .then((created) => created && setName(''));
      }}
    >
      <TextField label="Account name" value={name} onChange={(event) => setName(event.target.value)} required autoComplete="off" />
      <SelectField
        label="Scope"
        value={scope}
        onChange={(event) => setScope(event.target.value)}
        hint="invoke: calls flows; records: feeds record tables; admin: every admin service."
      >
        {SCOPES.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </SelectField>
      {boundToCompanies ? (
        <fieldset className="companies">
          <legend>Companies</legend>
          <CheckboxField label="All companies" checked={allCompanies} onChange={(event) => setAllCompanies(event.target.checked)} />
          {allCompanies
            ? null
            : (companies.data?.companies ?? []).map((company) => (
                <CheckboxField
                  key={company.name}
                  label={company.name}
                  checked={chosen.includes(company.name)}
                  onChange={(event) => setChosen(event.target.checked ? [...chosen, company.name] : chosen.filter((other) => other !== company.name))}
                />
              ))}
        </fieldset>
      ) : null}
      {scope === 'invoke' ? <CheckboxField label="Forwards callers (the facade)" checked={forwardsCallers} onChange={(event) => setForwardsCallers(event.target.checked)} /> : null}
      <button type="submit">Create service account</button>
    </form>
  );
}
