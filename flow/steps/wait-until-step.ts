// waitUntil: a durable timer until an instant, literal or computed (its
// runner: workflows/steps/wait-until-runner.ts). A deferral like sleep; a
// literal instant is checked here, a computed one only when it runs.
import { checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const waitUntilStep: StepModel<'waitUntil'> = {
  kind: 'waitUntil',
  defers: true,
  validate(waitUntil, at, { errors, scope }) {
    const until = waitUntil.until ?? '';
    checkText(until, `${at}.until`, errors, scope, true);
    if (until !== '' && !until.includes('${') && !until.includes('{{') && Number.isNaN(Date.parse(until))) {
      errors.push(`${at}.until: "${until}" is not an ISO 8601 timestamp`);
    }
  },
};
