// The worker's activities. Workflows import this module as types only.
import type { OutboundClient, RecordClient } from './engine-client.ts';
import { createHttpRequestActivity, type HttpRequestDeps } from './http-request.ts';
import { createRecordActivity } from './record.ts';
import { sensitiveAware } from './sensitive-activity.ts';

export interface ActivityDeps extends Omit<HttpRequestDeps, 'outbound'> {
  records: RecordClient;
  outbound: OutboundClient;
}

export function createActivities(deps: ActivityDeps) {
  return { httpRequest: sensitiveAware(createHttpRequestActivity(deps)), record: sensitiveAware(createRecordActivity(deps.records)) };
}

export type FlowActivities = ReturnType<typeof createActivities>;
export type { HttpRequestInput, HttpRequestOutput } from './http-request.ts';
export type { RecordInput, RecordOutput, RecordOperation } from './record.ts';
