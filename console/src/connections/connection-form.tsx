// Create or replace a connection (ConnectionAdminService.SetConnection). The
// kinds and the settings each uses come from the engine's connection kind
// registry (ListConnectionKinds), so a new kind shows up here by itself; the
// engine checks the values and its problems are shown at the fields they name.
// The secret is write-only: the field starts empty (also when replacing — a
// stored secret is never sent to the browser), is a password field the
// browser does not fill or save, and is sent once, in the SetConnection call.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import type { Message } from '@bufbuild/protobuf';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import {
  ConnectionAdminService,
  ConnectionType,
  type Connection,
  type ConnectionKindInfo,
  type ConnectionSettings,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { messageOf } from '../rpc/transport.ts';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { SelectField, TextField } from '../ui/field.tsx';
import { LoadProblem } from '../ui/states.tsx';

/**
 * The kind settings: every field of the proto's ConnectionSettings but the
 * three every kind has. A setting the proto gains is a type error below until
 * it is listed (the form would otherwise drop it when replacing a connection).
 */
type KindField = Exclude<keyof ConnectionSettings, keyof Message | 'type' | 'baseUrl' | 'allowedHosts'>;
const KIND_FIELDS = Object.keys({
  headerName: true,
  username: true,
  tokenUrl: true,
  clientId: true,
  scope: true,
  audience: true,
  smtpHost: true,
  smtpPort: true,
  smtpSecurity: true,
  mailFrom: true,
  mailTo: true,
} satisfies Record<KindField, true>) as KindField[];
type Values = { name: string; type: ConnectionType; baseUrl: string; allowedHosts: string; secret: string } & Record<
  KindField,
  string
>;

interface Props {
  company: string;
  /** Replace this one; a new connection when absent. */
  existing?: Connection;
  onDone(saved: Connection): void;
  onCancel(): void;
}

export function ConnectionForm({ company, existing, onDone, onCancel }: Props) {
  const [values, setValues] = useState<Values>(() => initialValues(existing));
  const kinds = useQuery(ConnectionAdminService.method.listConnectionKinds, {}, { staleTime: Infinity });
  const save = useMutation(ConnectionAdminService.method.setConnection);
  const kind = kinds.data?.kinds.find((candidate) => candidate.type === values.type);
  const set = (change: Partial<Values>) => setValues((old) => ({ ...old, ...change }));
  const problems = save.isError ? fieldProblems(messageOf(save.error)) : {};
  /** A text field bound to the form: its value (empty for a setting this page does not know), the engine's problem with it, typing into it. */
  const bound = (field: Exclude<keyof Values, 'type'>) => ({
    value: values[field] ?? '',
    problem: problems[field],
    onChange: (event: ChangeEvent<HTMLInputElement>) => set({ [field]: event.target.value }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const settings = {
      type: values.type,
      baseUrl: values.baseUrl.trim(),
      allowedHosts: hostsOf(values.allowedHosts),
      ...kindValues(values, kind),
    };
    // The secret leaves the page's memory with the form.
    save.mutate(
      { company, name: values.name.trim(), settings, secret: values.secret },
      { onSuccess: (answer) => onDone(answer.connection!) },
    );
  };

  return (
    <ModalDialog title={existing ? `Replace connection ${existing.name}` : 'New connection'} onClose={onCancel}>
      <form onSubmit={submit} noValidate autoComplete="off">
        <TextField label="Name" readOnly={existing !== undefined} data-autofocus {...bound('name')} />
        <SelectField
          label="Type"
          value={String(values.type)}
          problem={problems.type}
          onChange={(event) => set({ type: Number(event.target.value) as ConnectionType })}
        >
          {(kinds.data?.kinds ?? []).map((option) => (
            <option key={option.name} value={String(option.type)}>
              {option.name}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Base URL"
          hint="Requests go here; a step's relative URL is resolved against it."
          {...bound('baseUrl')}
        />
        <TextField
          label="Allowed hosts"
          hint="Other hosts the credentials may be sent to, separated by commas."
          {...bound('allowedHosts')}
        />
        {kind?.settings.map((use) => (
          <TextField
            key={use.field}
            label={capitalized(use.label)}
            placeholder={use.defaultValue || undefined}
            hint={`${capitalized(use.help)}${use.required ? ' (required)' : ''}.`}
            {...bound(use.field as KindField)}
          />
        ))}
        <TextField
          label={capitalized(kind?.secretName ?? 'secret')}
          type="password"
          autoComplete="new-password"
          hint={
            existing
              ? `Type the ${kind?.secretName ?? 'secret'} again: the stored one is never shown, and replacing the connection replaces it.`
              : 'Stored encrypted; nobody can read it back, here or anywhere.'
          }
          {...bound('secret')}
        />
        {kinds.isError ? <LoadProblem what="the connection kinds" error={kinds.error} /> : null}
        {save.isError ? (
          <p role="alert" className="problem">
            Not saved: {messageOf(save.error).split('\n')[0]}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" disabled={save.isPending || !kind}>
            {existing ? 'Replace connection' : 'Create connection'}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

function initialValues(existing: Connection | undefined): Values {
  const settings = existing?.settings;
  const kindSettings = Object.fromEntries(KIND_FIELDS.map((field) => [field, settings?.[field] ?? ''])) as Record<
    KindField,
    string
  >;
  return {
    name: existing?.name ?? '',
    type: settings?.type || ConnectionType.API_KEY,
    baseUrl: settings?.baseUrl ?? '',
    allowedHosts: settings?.allowedHosts.join(', ') ?? '',
    secret: '',
    ...kindSettings,
  };
}

/** Only the settings the kind uses (the engine refuses the others). */
function kindValues(values: Values, kind: ConnectionKindInfo | undefined): Record<KindField, string> {
  const uses = new Set(kind?.settings.map((use) => use.field));
  return Object.fromEntries(KIND_FIELDS.map((field) => [field, uses.has(field) ? values[field].trim() : ''])) as Record<
    KindField,
    string
  >;
}

function hostsOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((host) => host.trim())
    .filter(Boolean);
}

/**
 * The engine's refusal, each problem at the field it names: it lists them as
 * "- baseUrl: …" lines (or names the connection name on its own line).
 */
function fieldProblems(message: string): Record<string, string> {
  const byField: Record<string, string> = {};
  for (const line of message.split('\n')) {
    const match = /^(?:- )?(connection name|baseUrl or allowedHosts|[a-zA-Z]+): (.+)$/.exec(line.trim());
    if (!match) continue;
    const field =
      match[1] === 'connection name' ? 'name' : match[1] === 'baseUrl or allowedHosts' ? 'baseUrl' : match[1]!;
    byField[field] ??= capitalized(match[2]!);
  }
  return byField;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
