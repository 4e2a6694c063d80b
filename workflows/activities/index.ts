// The worker's activities. Workflows import this module as types only.
import type { OutboundClient, RecordClient } from './engine-client.ts';
import { createHttpRequestActivity, type HttpRequestDeps, type HttpRequestInput, type HttpRequestOutput } from './http-request.ts';
import { createRecordActivity } from './record.ts';
import { sensitiveAware } from './sensitive-activity.ts';

export interface ActivityDeps extends Omit<HttpRequestDeps, 'outbound'> {
  records: RecordClient;
  outbound: OutboundClient;
  /** Wraps the httpRequest activity to count its attempts (workflows/metrics/worker-metrics.ts). */
  meterOutbound?: (activity: HttpRequestActivity) => HttpRequestActivity;
}

type HttpRequestActivity = (input: HttpRequestInput) => Promise<HttpRequestOutput>;

export function createActivities(deps: ActivityDeps) {
  const httpRequest = createHttpRequestActivity(deps);
  return { httpRequest: sensitiveAware(deps.meterOutbound?.(httpRequest) ?? httpRequest), record: sensitiveAware(createRecordActivity(deps.records)) };
}

export type FlowActivities = ReturnType<typeof createActivities>;
export type { HttpRequestInput, HttpRequestOutput } from './http-request.ts';
export type { RecordInput, RecordOutput, RecordOperation } from './record.ts';
