// respond: answers the caller waiting in WAIT_FOR_RESPONSE_STEP mode (its
// runner: workflows/steps/respond-runner.ts). The deferral walk counts a
// caller answered once a respond step has run.
import { checkStatusCode, checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

export const respondStep: StepModel<'respond'> = {
  kind: 'respond',
  responds: true,
  validate(respond, at, { errors, scope }) {
    const code = respond.statusCode;
    if (typeof code === 'string') checkText(code, `${at}.statusCode`, errors, scope, true);
    else checkStatusCode(code ?? 200, `${at}.statusCode`, errors);
    checkText(respond.body, `${at}.body`, errors, scope);
    checkText(respond.contentType, `${at}.contentType`, errors, scope);
  },
};
