// A company's egress list: the hosts, host:port and CIDRs its flows'
// httpRequest steps may call, narrowing the operator's FLOWHOOK_EGRESS_ALLOW
// (never widening it). Edited as one host per line; the engine checks every
// entry and says which one it cannot read, changing nothing.
import { useState } from 'react';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import {
  ConnectionAdminService,
  type CompanyEgress,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ActionForm } from '../ui/action-buttons.tsx';
import { TextAreaField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { PageSection, type CompanySectionProps } from '../ui/page.tsx';
import { Loaded } from '../ui/states.tsx';

export function EgressSection(section: CompanySectionProps) {
  const { company } = section;
  const egress = useQuery(ConnectionAdminService.method.getCompanyEgress, { company });
  return (
    <PageSection
      id="egress-title"
      title="Egress list"
      intro={`Where the flows of ${company} may call: it narrows the operator's allowed hosts and never opens more than they do.`}
    >
      <Loaded read={egress} what="the egress list">
        {({ egress: current }) => (current ? <Egress current={current} {...section} /> : null)}
      </Loaded>
    </PageSection>
  );
}

function Egress({ company, current, actions, mayChange }: { current: CompanyEgress } & CompanySectionProps) {
  return (
    <>
      <p role="status" className="count">
        {current.narrowed
          ? `Narrowed to ${current.allow.length} ${current.allow.length === 1 ? 'entry' : 'entries'}.`
          : 'Not narrowed: the operator’s allowed hosts apply.'}
      </p>
      {mayChange ? (
        // Keyed by what the engine has: after a save the form starts from the stored list.
        <EgressForm
          key={current.allow.join('\n')}
          company={company}
          allow={current.allow}
          narrowed={current.narrowed}
          actions={actions}
        />
      ) : current.narrowed ? (
        <ul className="egress">
          {current.allow.map((entry) => (
            <li key={entry}>
              <code>{entry}</code>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

function EgressForm({
  company,
  allow,
  narrowed,
  actions,
}: {
  company: string;
  allow: string[];
  narrowed: boolean;
  actions: PageActions;
}) {
  const change = useMutation(ConnectionAdminService.method.setCompanyEgress);
  const [text, setText] = useState(allow.join('\n'));
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const save = async () => {
    const answer = await change.mutateAsync({ company, allow: entries });
    return { done: `The egress list of ${company} now allows ${answer.egress?.allow.join(', ')}.` };
  };
  return (
    <ActionForm aria-label="Egress list" actions={actions} run={save}>
      <TextAreaField
        label="Allowed hosts"
        value={text}
        rows={Math.max(4, entries.length + 1)}
        onValue={setText}
        hint="One per line: a host (api.example.com, *.example.com), host:port, or a CIDR (10.0.0.0/8)."
      />
      <div className="toolbar">
        <button type="submit" disabled={entries.length === 0}>
          Save egress list
        </button>
        {narrowed ? (
          <button
            type="button"
            className="secondary"
            onClick={() =>
              actions.confirm({
                title: 'Remove the egress list?',
                body: <p>The flows of {company} may then call every host the operator allows.</p>,
                action: 'Remove egress list',
                run: async () => {
                  await change.mutateAsync({ company, clear: true });
                  return { done: `The egress list of ${company} is removed: the operator’s allowed hosts apply.` };
                },
              })
            }
          >
            Remove egress list
          </button>
        ) : null}
      </div>
    </ActionForm>
  );
}
