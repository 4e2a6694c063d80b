// The execution log as a timeline: the trigger, then each step in the order it
// ran, with its description, kind, how long it took, its result and note (a
// failure's reason), and the output of a named step (Steps.<name>).
import type { ExecutionStep, StepOutput } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { between, durationText, timeText } from './format.ts';

interface Props {
  steps: ExecutionStep[];
  outputs: StepOutput[];
  /** doNotLogPayload: outputs are not shown here (an admin reveals them with the payload). */
  withheld: boolean;
}

export function ExecutionTimeline({ steps, outputs, withheld }: Props) {
  const outputOf = new Map(outputs.map((output) => [output.name, output.outputJson]));
  return (
    <section aria-labelledby="timeline-title" className="card">
      <h2 id="timeline-title">Steps</h2>
      {steps.length === 0 ? <p className="muted">No step has run yet.</p> : null}
      <ol className="timeline">
        {steps.map((step, index) => {
          const title =
            step.path === 'trigger' ? 'When a webhook is received' : step.description || step.name || step.type;
          const output = step.name ? outputOf.get(step.name) : undefined;
          return (
            <li
              key={`${step.path}:${index}`}
              className={`timeline-step ${step.status}`}
              aria-label={`${title}: ${step.status}`}
            >
              <div className="timeline-head">
                <strong>{title}</strong> <span className={`step-status ${step.status}`}>{step.status}</span>
              </div>
              <div className="muted">
                <code>{step.path}</code> · {step.type}
                {step.name ? (
                  <>
                    {' '}
                    · Steps.<code>{step.name}</code>
                  </>
                ) : null}{' '}
                · started {timeText(step.startedAt)} · took {durationText(between(step.startedAt, step.finishedAt))}
              </div>
              {step.note ? (
                <p className={step.status === 'failed' ? 'step-note problem' : 'step-note'}>{step.note}</p>
              ) : null}
              {output !== undefined ? (
                <details>
                  <summary>Output of {step.name}</summary>
                  <pre className="exact">{output}</pre>
                </details>
              ) : step.name && withheld ? (
                <p className="muted">Output withheld (the flow does not log its payload).</p>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
