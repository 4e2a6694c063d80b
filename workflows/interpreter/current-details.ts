// What the Temporal UI shows as an execution's current details: where the flow
// is (`step 3/7` of its list, the step's description and kind) and, while a
// step waits, what for — a host, a time. Names and times only: no URL paths,
// query strings, headers or payload data, and for doNotLogPayload flows not
// even a host (it may be computed from the payload).
import { setCurrentDetails } from '@temporalio/workflow';
import { markdownText } from '../../flow/markdown-text.ts';
import type { StepPosition } from '../steps/step-runner.ts';

export function showStep(position: StepPosition, waitingFor?: string): void {
  const what = position.description ? `${markdownText(position.description, 120)} (${position.kind})` : position.kind;
  const where = position.path.includes('.') ? ` · \`${position.path}\`` : '';
  setCurrentDetails(
    `**step ${position.index}/${position.count}** · ${what}${where}${waitingFor ? ` · waiting for ${waitingFor}` : ''}`,
  );
}
