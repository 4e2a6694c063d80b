// A company's egress list: the hosts, host:port and CIDRs its flows'
// httpRequest steps may call, narrowing the operator's FLOWHOOK_EGRESS_ALLOW
// (never widening it). Edited as one host per line; the engine checks every
// entry and says which one it cannot read, changing nothing.
import { useState } from 'react';
import { createClient } from '@connectrpc/connect';
import { useQuery } from '@connectrpc/connect-query';
import { ConnectionAdminService } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { transport } from '../rpc/transport.ts';
import { TextAreaField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';

const connections = createClient(ConnectionAdminService, transport);

export function EgressSection({ company, actions, mayChange }: { company: string; actions: PageActions; mayChange: boolean }) {
  const egress = useQuery(ConnectionAdminService.method.getCompanyEgress, { company });
  const current = egress.data?.egress;
  return (
    <section aria-labelledby="egress-title" className="people-section">
      <h2 id="egress-title">Egress list</h2>
      <p className="muted">Where the flows of {company} may call: it narrows the operator&apos;s allowed hosts and never opens more than they do.</p>
      {egress.isPending ? <Loading what="the egress list" /> : null}
      {egress.isError ? <LoadProblem what="the egress list" error={egress.error} /> : null}
      {current ? (
        <>
          <p role="status" className="count">
            {current.narrowed ? `Narrowed to ${current.allow.length} ${current.allow.length === 1 ? 'entry' : 'entries'}.` : 'Not narrowed: the operator’s allowed hosts apply.'}
          </p>
          {mayChange ? (
            // Keyed by what the engine has: after a save the form starts from the stored list.
            <EgressForm key={current.allow.join('\n')} company={company} allow={current.allow} narrowed={current.narrowed} actions={actions} />
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
      ) : null}
    </section>
  );
}

function EgressForm({ company, allow, narrowed, actions }: { company: string; allow: string[]; narrowed: boolean; actions: PageActions }) {
  const [text, setText] = useState(allow.join('\n'));
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return (
    <form
      aria-label="Egress list"
      onSubmit={(event) => {
        event.preventDefault();
        void actions.run(async () => {
          const answer = await connections.setCompanyEgress({ company, allow: entries });
          return { done: `The egress list of ${company} now allows ${answer.egress?.allow.join(', ')}.` };
        });
      }}
    >
      <TextAreaField
        label="Allowed hosts"
        value={text}
        rows={Math.max(4, entries.length + 1)}
        onChange={(event) => setText(event.target.value)}
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
                  await connections.setCompanyEgress({ company, clear: true });
                  return { done: `The egress list of ${company} is removed: the operator’s allowed hosts apply.` };
                },
              })
            }
          >
            Remove egress list
          </button>
        ) : null}
      </div>
    </form>
  );
}
