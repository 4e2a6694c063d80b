// Every problem a publish would report (FlowAdminService.CheckFlow, and the
// card's own checks), each with the field it names and a way there: the
// field on the card, or its line in the YAML tab.
import { useId } from 'react';

export interface ShownProblem {
  fieldPath: string;
  message: string;
  severity: 'error' | 'warning';
}

export function ProblemsList({
  problems,
  onShow,
}: {
  problems: readonly ShownProblem[];
  onShow(problem: ShownProblem): void;
}) {
  const headingId = useId();
  if (problems.length === 0) return null;
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  return (
    <section className="card problems" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {errors > 0 ? `${errors} problem${errors === 1 ? '' : 's'} to fix before publishing` : 'Warnings'}
      </h2>
      <ul>
        {problems.map((problem) => (
          <li key={`${problem.severity}:${problem.fieldPath}:${problem.message}`} className={problem.severity}>
            <span className="severity">{problem.severity === 'error' ? 'Error' : 'Warning'}</span>{' '}
            {problem.fieldPath ? <code>{problem.fieldPath}</code> : null} {problem.message}{' '}
            {problem.fieldPath ? (
              <button type="button" className="link" onClick={() => onShow(problem)}>
                Show
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
