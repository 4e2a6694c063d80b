// httpRequest: one outbound call, made at run time by the httpRequest
// activity (its runner: workflows/steps/http-request-runner.ts). The only
// kind that names a connection, which publishing requires to exist.
import { CONNECTION_NAME } from '../connection-name.ts';
import { formatDuration, parseDuration } from '../../common/duration.ts';
import { checkText } from '../field-checks.ts';
import type { StepModel } from './step-model.ts';

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export const httpRequestStep: StepModel<'httpRequest'> = {
  kind: 'httpRequest',
  validate(request, at, { errors, limits, scope }) {
    checkText(request.url, `${at}.url`, errors, scope, true);
    if (request.method && !HTTP_METHODS.has(request.method.toUpperCase()))
      errors.push(`${at}.method: unknown HTTP method "${request.method}"`);
    for (const [name, value] of Object.entries(request.headers ?? {}))
      checkText(value, `${at}.headers.${name}`, errors, scope);
    checkText(request.body, `${at}.body`, errors, scope);
    if (request.timeout) {
      const ms = parseDuration(request.timeout);
      if (typeof ms === 'string') errors.push(`${at}.timeout: ${ms}`);
      else if (ms < 1 || ms > limits.maxHttpTimeoutMs)
        errors.push(
          `${at}.timeout: between 1ms and ${formatDuration(limits.maxHttpTimeoutMs)} (the engine's FLOWHOOK_MAX_HTTP_TIMEOUT)`,
        );
    }
    if (request.connection !== undefined && !CONNECTION_NAME.test(request.connection))
      errors.push(`${at}.connection: 1..100 letters, digits, _, - or ., got ${JSON.stringify(request.connection)}`);
    if (request.maxAttempts !== undefined && (request.maxAttempts < 1 || request.maxAttempts > 20))
      errors.push(`${at}.maxAttempts: must be between 1 and 20`);
  },
  connection: (request) => request.connection,
};
