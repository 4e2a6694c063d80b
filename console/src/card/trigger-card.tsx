// "When a webhook is received": the trigger's fields under the spec's names
// (§2.3), with their defaults and rules — Sync Timeout only for "Wait for
// Response step", Activity lowercase, status codes 200..599.
import { useId } from 'react';
import type { FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { CheckboxField, SelectField, TextField } from '../ui/field.tsx';
import {
  DEFAULT_CONTENT_TYPE,
  DEFAULT_STATUS_CODE,
  DEFAULT_SYNC_TIMEOUT_SECONDS,
  parseStatusCode,
  responseModeOf,
  triggerOf,
  withTrigger,
  type ResponseModeName,
} from './flow-draft.ts';
import { SecretField, type SecretFieldProps } from './secret-field.tsx';

export interface TriggerCardProps {
  draft: FlowJson;
  onChange(draft: FlowJson): void;
  problemOf(path: string): string | undefined;
  warningOf(path: string): string | undefined;
  readOnly: boolean;
  secret: Omit<SecretFieldProps, 'readOnly'>;
}

const FIELD = 'trigger.webhook';

export function TriggerCard({ draft, onChange, problemOf, warningOf, readOnly, secret }: TriggerCardProps) {
  const headingId = useId();
  const trigger = triggerOf(draft);
  const mode = responseModeOf(draft);
  const set = (patch: Parameters<typeof withTrigger>[1]) => onChange(withTrigger(draft, patch));
  const at = (field: string) => ({
    problem: problemOf(`${FIELD}.${field}`),
    warning: warningOf(`${FIELD}.${field}`),
    'data-field': `${FIELD}.${field}`,
  });
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>When a webhook is received</h2>
      <TextField
        label="Description"
        value={trigger.description ?? ''}
        readOnly={readOnly}
        onValue={(description) => set({ description })}
        hint="Says what triggers the flow; shown in trigger lists and the execution history."
        {...at('description')}
      />
      <TextField
        label="Activity"
        value={trigger.activity ?? ''}
        readOnly={readOnly}
        spellCheck={false}
        autoComplete="off"
        onValue={(activity) => set({ activity })}
        onBlur={(event) => set({ activity: event.target.value.trim().toLowerCase() })}
        hint="The key callers send, e.g. payments.provider.callback. Stored lowercase: two activities that differ only in letter case are the same, and one published flow per activity."
        {...at('activity')}
      />
      <SecretField {...secret} readOnly={readOnly} />
      <SelectField
        label="Response Mode"
        value={mode}
        disabled={readOnly}
        onChange={(event) => set({ responseMode: event.target.value as ResponseModeName })}
        hint={
          mode === 'INSTANT_RETURN'
            ? 'The caller gets the default response at once; the flow runs on in the background.'
            : 'The caller waits for a Respond to Webhook step, the sync timeout or the end of the flow.'
        }
        {...at('responseMode')}
      >
        <option value="INSTANT_RETURN">Instant return</option>
        <option value="WAIT_FOR_RESPONSE_STEP">Wait for Response step</option>
      </SelectField>
      {mode === 'WAIT_FOR_RESPONSE_STEP' ? (
        <TextField
          label="Sync Timeout (seconds)"
          type="number"
          inputMode="numeric"
          min={1}
          max={600}
          placeholder={String(DEFAULT_SYNC_TIMEOUT_SECONDS)}
          value={trigger.syncTimeoutSeconds ?? ''}
          readOnly={readOnly}
          onChange={(event) =>
            set({ syncTimeoutSeconds: event.target.value === '' ? undefined : Number(event.target.value) })
          }
          hint={`How long the caller waits before getting the default response (1..600; default ${DEFAULT_SYNC_TIMEOUT_SECONDS}). The flow then continues in the background.`}
          {...at('syncTimeoutSeconds')}
        />
      ) : null}
      <TextField
        label="Default Response Status Code"
        inputMode="numeric"
        placeholder={String(DEFAULT_STATUS_CODE)}
        value={trigger.defaultResponseStatusCode ?? ''}
        readOnly={readOnly}
        onChange={(event) => {
          const code = parseStatusCode(event.target.value);
          set({ defaultResponseStatusCode: code as number | undefined });
        }}
        hint="Used when the flow ends without a Respond to Webhook step (Instant return, sync timeout, no Respond step): 200..599, default 200."
        {...at('defaultResponseStatusCode')}
      />
      <TextField
        label="Default Response Content-Type"
        placeholder={DEFAULT_CONTENT_TYPE}
        value={trigger.defaultResponseContentType ?? ''}
        readOnly={readOnly}
        onChange={(event) =>
          set({ defaultResponseContentType: event.target.value === '' ? undefined : event.target.value })
        }
        hint="The default response's media type; its body is empty. Default application/json."
        {...at('defaultResponseContentType')}
      />
      <CheckboxField
        label="Do not log payload"
        checked={trigger.doNotLogPayload ?? false}
        disabled={readOnly}
        onChange={(event) => set({ doNotLogPayload: event.target.checked || undefined })}
        hint="Keeps the inbound payload out of the execution log (and encrypts it in Temporal's history). For sensitive data."
      />
    </section>
  );
}
