// A company's hook secrets: the shared secrets its provider routes (GitHub,
// Stripe, Slack, … webhooks sent straight to flowhook) verify signatures
// with, one per activity. Write-only: a secret is typed in or generated, and
// a generated one is shown once; the list says only when each was set and how
// long the one before it still holds.
import { useRef, useState, type RefObject } from 'react';
import { createClient } from '@connectrpc/connect';
import { useQuery } from '@connectrpc/connect-query';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { HookSecretAdminService } from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { transport } from '../rpc/transport.ts';
import { ConfirmButton } from '../ui/action-buttons.tsx';
import { CheckboxField, TextField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';

const hookSecrets = createClient(HookSecretAdminService, transport);

export function HookSecretsSection({ company, actions, mayChange }: { company: string; actions: PageActions; mayChange: boolean }) {
  const list = useQuery(HookSecretAdminService.method.listHookSecrets, { company });
  const form = useRef<HTMLFormElement>(null);
  const [activity, setActivity] = useState('');
  return (
    <section aria-labelledby="hook-secrets-title" className="people-section">
      <h2 id="hook-secrets-title">Hook secrets</h2>
      <p className="muted">The secrets provider routes verify their webhooks&apos; signatures with, per activity. They are never shown back.</p>
      {list.isPending ? <Loading what="the hook secrets" /> : null}
      {list.isError ? <LoadProblem what="the hook secrets" error={list.error} /> : null}
      {list.data && list.data.secrets.length === 0 ? <p>No hook secrets in {company} yet.</p> : null}
      {list.data && list.data.secrets.length > 0 ? (
        <table>
          <caption className="visually-hidden">Hook secrets of {company}</caption>
          <thead>
            <tr>
              <th scope="col">Activity</th>
              <th scope="col">Set</th>
              <th scope="col">Previous secret valid until</th>
              <th scope="col">Provider route</th>
              {mayChange ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {list.data.secrets.map((secret) => (
              <tr key={secret.activity}>
                <th scope="row">
                  <code>{secret.activity}</code>
                </th>
                <td>{secret.updatedAt ? timestampDate(secret.updatedAt).toLocaleString() : '—'}</td>
                <td>{secret.previousValidUntil ? timestampDate(secret.previousValidUntil).toLocaleString() : '—'}</td>
                <td>{secret.routePublished ? 'published' : 'no published route'}</td>
                {mayChange ? (
                  <td className="row-actions">
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() => {
                        setActivity(secret.activity);
                        // Straight to the new secret: the activity is filled in.
                        form.current?.querySelector<HTMLInputElement>('input[type="password"], input[type="checkbox"]')?.focus();
                      }}
                    >
                      Replace
                    </button>
                    <ConfirmButton
                      actions={actions}
                      danger
                      title="Delete the hook secret?"
                      body={
                        <>
                          Webhooks for <code>{secret.activity}</code> can no longer be verified: the provider route refuses them until a secret is set again.
                        </>
                      }
                      action="Delete hook secret"
                      run={async () => {
                        await hookSecrets.deleteHookSecret({ company, activity: secret.activity });
                        return { done: `Hook secret of ${secret.activity} deleted.` };
                      }}
                    >
                      Delete
                    </ConfirmButton>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {mayChange ? <SetHookSecret company={company} actions={actions} activity={activity} setActivity={setActivity} form={form} /> : null}
    </section>
  );
}

interface SetProps {
  company: string;
  actions: PageActions;
  activity: string;
  setActivity(activity: string): void;
  form: RefObject<HTMLFormElement | null>;
}

function SetHookSecret({ company, actions, activity, setActivity, form }: SetProps) {
  const [secret, setSecret] = useState('');
  const [generate, setGenerate] = useState(false);
  const [overlap, setOverlap] = useState('');
  return (
    <form
      ref={form}
      className="inline-form"
      aria-label="Set a hook secret"
      onSubmit={(event) => {
        event.preventDefault();
        void actions.run(async () => {
          const answer = await hookSecrets.setHookSecret({
            company,
            activity,
            secret: generate ? '' : secret,
            generate,
            overlapSeconds: overlap === '' ? undefined : Number(overlap),
          });
          // Write-only: what was typed leaves the page as soon as the engine has it (and stays if it was refused, to be corrected).
          setSecret('');
          const until = answer.previousValidUntil ? ` The previous secret still holds until ${timestampDate(answer.previousValidUntil).toLocaleString()}.` : '';
          return {
            done: `Hook secret of ${activity} set.${until}`,
            reveal: answer.generatedSecret
              ? {
                  title: 'Hook secret',
                  what: (
                    <>
                      The generated hook secret of <code>{activity}</code> in {company}.
                    </>
                  ),
                  value: answer.generatedSecret,
                  use: <>flowhook keeps it sealed and never shows it again. Paste it into the provider&apos;s webhook settings.</>,
                }
              : undefined,
          };
        });
      }}
    >
      <TextField label="Activity" value={activity} onChange={(event) => setActivity(event.target.value)} required autoComplete="off" />
      <CheckboxField label="Generate the secret" checked={generate} onChange={(event) => setGenerate(event.target.checked)} />
      {generate ? null : (
        <TextField
          label="Secret"
          type="password"
          value={secret}
          onChange={(event) => setSecret(event.target.value)}
          required
          autoComplete="new-password"
          hint="Write-only: never shown back."
        />
      )}
      <TextField
        label="Keep the previous secret valid for (seconds)"
        type="number"
        min={0}
        max={604800}
        value={overlap}
        onChange={(event) => setOverlap(event.target.value)}
        hint="Optional: while the provider still signs with the old one. At most 7 days."
      />
      <button type="submit">Set hook secret</button>
    </form>
  );
}
