// A company's hook secrets: the shared secrets its provider routes (GitHub,
// Stripe, Slack, … webhooks sent straight to flowhook) verify signatures
// with, one per activity. Write-only: a secret is typed in or generated, and
// a generated one is shown once; the list says only when each was set and how
// long the one before it still holds.
import { useRef, useState, type RefObject } from 'react';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import {
  HookSecretAdminService,
  type HookSecret,
} from '../../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { ActionForm, DeleteButton, RowButton } from '../ui/action-buttons.tsx';
import { CheckboxField, TextField } from '../ui/field.tsx';
import type { PageActions } from '../ui/page-actions.tsx';
import type { CompanySectionProps } from '../ui/page.tsx';
import { TableSection } from '../ui/table-section.tsx';

export function HookSecretsSection(section: CompanySectionProps) {
  const { company, actions, mayChange } = section;
  const list = useQuery(HookSecretAdminService.method.listHookSecrets, { company });
  const form = useRef<HTMLFormElement>(null);
  const [activity, setActivity] = useState('');
  const replace = (secret: HookSecret) => {
    setActivity(secret.activity);
    // Straight to the new secret: the activity is filled in.
    form.current?.querySelector<HTMLInputElement>('input[type="password"], input[type="checkbox"]')?.focus();
  };
  return (
    <TableSection
      id="hook-secrets-title"
      title="Hook secrets"
      intro="The secrets provider routes verify their webhooks' signatures with, per activity. They are never shown back."
      read={list}
      rowsOf={(data) => data.secrets}
      empty={<p>No hook secrets in {company} yet.</p>}
      caption={`Hook secrets of ${company}`}
      columns={['Activity', 'Set', 'Previous secret valid until', 'Provider route', mayChange && 'Actions']}
      after={
        mayChange ? (
          <SetHookSecret
            company={company}
            actions={actions}
            activity={activity}
            setActivity={setActivity}
            form={form}
          />
        ) : null
      }
    >
      {(secret) => (
        <HookSecretRow key={secret.activity} secret={secret} {...section} onReplace={() => replace(secret)} />
      )}
    </TableSection>
  );
}

interface RowProps extends CompanySectionProps {
  secret: HookSecret;
  onReplace(): void;
}

function HookSecretRow({ company, secret, actions, mayChange, onReplace }: RowProps) {
  const remove = useMutation(HookSecretAdminService.method.deleteHookSecret);
  return (
    <tr>
      <th scope="row">
        <code>{secret.activity}</code>
      </th>
      <td>{secret.updatedAt ? timestampDate(secret.updatedAt).toLocaleString() : '—'}</td>
      <td>{secret.previousValidUntil ? timestampDate(secret.previousValidUntil).toLocaleString() : '—'}</td>
      <td>{secret.routePublished ? 'published' : 'no published route'}</td>
      {mayChange ? (
        <td className="row-actions">
          <RowButton onClick={onReplace}>Replace</RowButton>
          <DeleteButton
            actions={actions}
            what="hook secret"
            body={
              <>
                Webhooks for <code>{secret.activity}</code> can no longer be verified: the provider route refuses them
                until a secret is set again.
              </>
            }
            remove={() => remove.mutateAsync({ company, activity: secret.activity })}
            done={`Hook secret of ${secret.activity} deleted.`}
          />
        </td>
      ) : null}
    </tr>
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
  const set = useMutation(HookSecretAdminService.method.setHookSecret);
  const [secret, setSecret] = useState('');
  const [generate, setGenerate] = useState(false);
  const [overlap, setOverlap] = useState('');
  const setHookSecret = async () => {
    const answer = await set.mutateAsync({
      company,
      activity,
      secret: generate ? '' : secret,
      generate,
      overlapSeconds: overlap === '' ? undefined : Number(overlap),
    });
    // Write-only: what was typed leaves the page as soon as the engine has it (and stays if it was refused, to be corrected).
    setSecret('');
    const until = answer.previousValidUntil
      ? ` The previous secret still holds until ${timestampDate(answer.previousValidUntil).toLocaleString()}.`
      : '';
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
            use: (
              <>
                flowhook keeps it sealed and never shows it again. Paste it into the provider&apos;s webhook settings.
              </>
            ),
          }
        : undefined,
    };
  };
  return (
    <ActionForm ref={form} className="inline-form" aria-label="Set a hook secret" actions={actions} run={setHookSecret}>
      <TextField label="Activity" value={activity} onValue={setActivity} required autoComplete="off" />
      <CheckboxField label="Generate the secret" checked={generate} onChecked={setGenerate} />
      {generate ? null : (
        <TextField
          label="Secret"
          type="password"
          value={secret}
          onValue={setSecret}
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
        onValue={setOverlap}
        hint="Optional: while the provider still signs with the old one. At most 7 days."
      />
      <button type="submit">Set hook secret</button>
    </ActionForm>
  );
}
