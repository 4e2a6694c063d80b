// The worker's activities. Workflows import this module as types only.
import { httpRequest } from './http-request.ts';

export function createActivities() {
  return { httpRequest };
}

export type FlowActivities = ReturnType<typeof createActivities>;
export type { HttpRequestInput, HttpRequestOutput } from './http-request.ts';
