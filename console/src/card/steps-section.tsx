// The flow's steps in order — each one's kind and description, `if` branches
// nested under their step — and the card of the selected step. The Respond to
// Webhook step has its card here; every kind is edited in the YAML tab.
import { useId } from 'react';
import type { FlowJson, RespondStepJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import {
  outline,
  STEP_KINDS,
  stepAt,
  stepKindOf,
  withStepAdded,
  withStepAt,
  withStepMoved,
  DEFAULT_CONTENT_TYPE,
  DEFAULT_STATUS_CODE,
  type StepOutline,
} from './flow-draft.ts';
import { RespondStepCard } from './respond-step-card.tsx';

export interface StepsSectionProps {
  draft: FlowJson;
  onChange(draft: FlowJson): void;
  selected: string | undefined;
  onSelect(path: string | undefined): void;
  problemOf(path: string): string | undefined;
  /** Whether any problem names this step or a field of it. */
  stepHasProblem(path: string): boolean;
  readOnly: boolean;
  onOpenYaml(): void;
}

export function StepsSection({
  draft,
  onChange,
  selected,
  onSelect,
  problemOf,
  stepHasProblem,
  readOnly,
  onOpenYaml,
}: StepsSectionProps) {
  const headingId = useId();
  const items = outline(draft.steps ?? []);
  const step = selected ? stepAt(draft, selected) : undefined;
  const kind = step ? stepKindOf(step) : undefined;
  const add = () => {
    const added = withStepAdded(draft, {
      respond: { description: '', statusCode: DEFAULT_STATUS_CODE, contentType: DEFAULT_CONTENT_TYPE, body: '' },
    });
    onChange(added.flow);
    onSelect(added.path);
  };
  const move = (by: -1 | 1) => {
    if (!selected) return;
    const moved = withStepMoved(draft, selected, by);
    onChange(moved.flow);
    onSelect(moved.path);
  };
  const remove = () => {
    if (!selected) return;
    onChange(withStepAt(draft, selected, undefined));
    onSelect(undefined);
  };
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Steps</h2>
      {items.length === 0 ? (
        <p>No steps yet: the caller gets the default response and the flow ends.</p>
      ) : (
        <StepList items={items} selected={selected} onSelect={onSelect} stepHasProblem={stepHasProblem} />
      )}
      {readOnly ? null : (
        <div className="toolbar">
          <button type="button" className="secondary" onClick={add}>
            Add Respond to Webhook step
          </button>
          {selected ? (
            <>
              <button type="button" className="secondary" onClick={() => move(-1)}>
                Move step up
              </button>
              <button type="button" className="secondary" onClick={() => move(1)}>
                Move step down
              </button>
              <button type="button" className="secondary" onClick={remove}>
                Remove step
              </button>
            </>
          ) : null}
        </div>
      )}
      {step && kind === 'respond' && selected ? (
        <RespondStepCard
          path={selected}
          step={step.respond as RespondStepJson}
          readOnly={readOnly}
          problemOf={(field) => problemOf(`${selected}.respond.${field}`)}
          onChange={(respond) => onChange(withStepAt(draft, selected, { ...step, respond }))}
        />
      ) : null}
      {step && kind !== 'respond' ? (
        <p>
          {kind ? STEP_KINDS[kind] : 'This'} steps are edited in the YAML tab.{' '}
          <button type="button" className="link" onClick={onOpenYaml}>
            Open the YAML
          </button>
        </p>
      ) : null}
    </section>
  );
}

function StepList({
  items,
  selected,
  onSelect,
  stepHasProblem,
}: {
  items: StepOutline[];
  selected?: string;
  onSelect(path: string): void;
  stepHasProblem(path: string): boolean;
}) {
  return (
    <ol className="steps">
      {items.map((item) => (
        <li key={item.path}>
          <button
            type="button"
            className="step"
            aria-current={item.path === selected ? 'true' : undefined}
            onClick={() => onSelect(item.path)}
          >
            <span className="step-kind">{item.kind ? STEP_KINDS[item.kind] : 'Unknown step'}</span>
            {item.description ? <span className="step-description"> — {item.description}</span> : null}
            {item.detail ? <span className="step-detail"> ({item.detail})</span> : null}
            {stepHasProblem(item.path) ? <span className="step-problem"> · has a problem</span> : null}
          </button>
          {item.branches.map((branch) => (
            <div key={branch.label} className="branch">
              <p className="branch-label">{branch.label}</p>
              {branch.steps.length > 0 ? (
                <StepList
                  items={branch.steps}
                  selected={selected}
                  onSelect={onSelect}
                  stepHasProblem={stepHasProblem}
                />
              ) : (
                <p className="muted">no steps</p>
              )}
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}
