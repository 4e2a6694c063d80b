// The webhook call's body, {activity, secret, payload}, checked before the engine is asked:
// `activity` and `secret` non-empty strings, `payload` a JSON object taken as
// exact text. Unknown extra top-level members are accepted and ignored: callers
// often wrap webhooks with envelope fields of their own, and refusing them
// would break such integrations for no gain (nothing reads them).
import { exceedsNameLimit, nameLimitRule } from '../common/name-limits.ts';
import { BadRequestError } from './http-errors.ts';
import { extractPayloadText } from './payload-extract.ts';

export interface WebhookRequest {
  activity: string;
  secret: string;
  /** The `payload` member's JSON text exactly as sent. */
  payloadJson: string;
}

/** `body` is the parsed JSON, `rawBody` the text it was parsed from. */
export function readWebhookRequest(body: unknown, rawBody: string): WebhookRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequestError('the request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const activity = requiredString(fields, 'activity');
  if (exceedsNameLimit('activity', activity))
    throw new BadRequestError(`activity is too long (${nameLimitRule('activity')})`);
  const secret = requiredString(fields, 'secret');
  return { activity, secret, payloadJson: extractPayloadText(rawBody) };
}

function requiredString(fields: Record<string, unknown>, name: string): string {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  // The message names the field, never its value (it may be the secret).
  if (value === undefined) throw new BadRequestError(`${name} is required (a non-empty string)`);
  if (typeof value !== 'string' || value === '') throw new BadRequestError(`${name} must be a non-empty string`);
  return value;
}
