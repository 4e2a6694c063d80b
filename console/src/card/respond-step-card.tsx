// The "Respond to Webhook" step card (spec §2.4): Description, Status Code
// (200..599, 1xx refused as it is typed), Content-Type and Body, with what
// SmartFields and SmartFormulas the body may use.
import { useId } from 'react';
import type { RespondStepJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { TextAreaField, TextField } from '../ui/field.tsx';
import { DEFAULT_CONTENT_TYPE, parseStatusCode } from './flow-draft.ts';

export interface RespondStepCardProps {
  path: string;
  step: RespondStepJson;
  readOnly: boolean;
  problemOf(field: string): string | undefined;
  onChange(step: RespondStepJson): void;
}

export function RespondStepCard({ path, step, readOnly, problemOf, onChange }: RespondStepCardProps) {
  const headingId = useId();
  const set = (patch: Partial<RespondStepJson>) => {
    const next: Record<string, unknown> = { ...step, ...patch };
    for (const [key, value] of Object.entries(next)) if (value === undefined) delete next[key];
    onChange(next as RespondStepJson);
  };
  return (
    <section className="step-card" aria-labelledby={headingId}>
      <h3 id={headingId}>Respond to Webhook</h3>
      <p className="muted">
        Step <code>{path}</code>. Answers a caller waiting in Wait for Response step mode; in Instant return mode it is
        skipped.
      </p>
      <TextField
        label="Description"
        value={step.description ?? ''}
        readOnly={readOnly}
        onValue={(description) => set({ description })}
        problem={problemOf('description')}
        data-field={`${path}.respond.description`}
      />
      <TextField
        label="Status Code"
        inputMode="numeric"
        value={step.statusCode === undefined || step.statusCode === null ? '' : String(step.statusCode)}
        readOnly={readOnly}
        onChange={(event) => set({ statusCode: parseStatusCode(event.target.value) })}
        problem={problemOf('statusCode')}
        data-field={`${path}.respond.statusCode`}
        hint="200..599 (1xx codes are refused), or a SmartFormula yielding one. Returned to the caller as statusCode."
      />
      <TextField
        label="Content-Type"
        placeholder={DEFAULT_CONTENT_TYPE}
        value={step.contentType ?? ''}
        readOnly={readOnly}
        onChange={(event) => set({ contentType: event.target.value === '' ? undefined : event.target.value })}
        problem={problemOf('contentType')}
        data-field={`${path}.respond.contentType`}
        hint="The body's media type, e.g. application/json, text/plain, application/xml."
      />
      <TextAreaField
        label="Body"
        rows={5}
        className="code"
        spellCheck={false}
        value={step.body ?? ''}
        readOnly={readOnly}
        onValue={(body) => set({ body })}
        problem={problemOf('body')}
        data-field={`${path}.respond.body`}
        hint={<SmartFormulaHelp />}
      />
    </section>
  );
}

function SmartFormulaHelp() {
  return (
    <details>
      <summary>SmartFields and SmartFormulas in the body</summary>
      <ul>
        <li>
          <code>{'{{Trigger.Payload.order.id}}'}</code> — a SmartField: the plain value of a path, as text.
        </li>
        <li>
          <code>{'${ {"orderId": Trigger.Payload.order.id, "status": "accepted"} }'}</code> — a SmartFormula (JSONata):
          a whole-body formula yielding an object is written as JSON.
        </li>
        <li>
          Formulas see <code>Trigger</code> (Payload, Activity, Description), <code>Variables</code>,{' '}
          <code>Steps.&lt;name&gt;</code>, <code>Execution</code> and <code>Company</code>. Values from the payload are
          data: never evaluated again.
        </li>
      </ul>
    </details>
  );
}
