// Structured logs for the facade. The request log only ever receives chosen
// fields (never bodies or headers); the redaction list is a second line of
// defence should a credential ever reach a log object by mistake.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { FacadeLogLevel } from './config.ts';
import { requestScopeFields } from '../common/request-scope.ts';

export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'secret',
  '*.secret',
  'accessKey',
  '*.accessKey',
  'payload',
  '*.payload',
  'payloadJson',
  '*.payloadJson',
  'body',
  '*.body',
];

/** `destination` defaults to stdout; tests pass a collector. */
export function createFacadeLogger(level: FacadeLogLevel, destination?: DestinationStream): Logger {
  const options = {
    name: 'facade',
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: requestScopeFields,
  };
  return destination ? pino(options, destination) : pino(options);
}
