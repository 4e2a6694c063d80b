// Structured logs for the engine; the redaction list is a second line of
// defence behind the rule that credentials are never put in a log object.
import pino, { type Logger } from 'pino';
import { requestScopeFields } from '../common/request-scope.ts';

export const REDACTED_PATHS = [
  'secret',
  '*.secret',
  'accessKey',
  '*.accessKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'payloadJson',
  '*.payloadJson',
];

export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, mixin: requestScopeFields });
}
