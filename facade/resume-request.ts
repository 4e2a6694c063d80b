// The body of flowWebhook_Resume: `activity`, `secret` and `key` non-empty
// strings, `payload` any JSON value taken as exact text (the waiting step
// receives it as its body; absent, the engine hands over `{}`). As for the
// webhook call, unknown extra members are ignored and the ones read must not
// appear twice (JSON.parse would silently keep the last).
import { BadRequestError } from './http-errors.ts';
import { scanTopLevelMembers } from './payload-extract.ts';

export interface ResumeRequest {
  activity: string;
  secret: string;
  key: string;
  /** The `payload` member's JSON text exactly as sent; '' when there is none. */
  payloadJson: string;
}

const SINGLE_MEMBERS = ['activity', 'secret', 'key', 'payload'];

/** `body` is the parsed JSON, `rawBody` the text it was parsed from. */
export function readResumeRequest(body: unknown, rawBody: string): ResumeRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequestError('the request body must be a JSON object');
  const members = scanTopLevelMembers(rawBody);
  for (const name of SINGLE_MEMBERS) {
    if (members.filter((member) => member.key === name).length > 1)
      throw new BadRequestError(`duplicate member "${name}" in the request body`);
  }
  const fields = body as Record<string, unknown>;
  const payload = members.find((member) => member.key === 'payload');
  return {
    activity: requiredString(fields, 'activity'),
    secret: requiredString(fields, 'secret'),
    key: requiredString(fields, 'key'),
    payloadJson: payload ? rawBody.slice(payload.start, payload.end) : '',
  };
}

function requiredString(fields: Record<string, unknown>, name: string): string {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  // The message names the field, never its value (it may be the secret or the key).
  if (value === undefined) throw new BadRequestError(`${name} is required (a non-empty string)`);
  if (typeof value !== 'string' || value === '') throw new BadRequestError(`${name} must be a non-empty string`);
  return value;
}
