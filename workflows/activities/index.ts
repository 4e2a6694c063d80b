// The worker's activities. Workflows import this module as types only.
import type { CallbackClient, OutboundClient, RecordClient } from './engine-client.ts';
import {
  createHttpRequestActivity,
  type HttpRequestDeps,
  type HttpRequestInput,
  type HttpRequestOutput,
} from './http-request.ts';
import { createRecordActivity } from './record.ts';
import { createRegisterCallbackKeyActivity } from './register-callback-key.ts';
import { sensitiveAware } from './sensitive-activity.ts';
import { createFlowControlActivities } from './flow-control.ts';
import type { Client } from '@temporalio/client';
import { createAlertActivities, type AlertCheckClient } from '../operations/alert-activities.ts';
import { createRetentionActivities, type HousekeepingClient } from '../operations/retention-activities.ts';

export interface ActivityDeps extends Omit<HttpRequestDeps, 'outbound'> {
  records: RecordClient;
  outbound: OutboundClient;
  callbacks: CallbackClient;
  /** The alert workflows' calls (workflows/operations/alert-activities.ts). */
  alerts: AlertCheckClient;
  /** The retention workflow's purge rounds (workflows/operations/retention-activities.ts). */
  housekeeping: HousekeepingClient;
  /** The worker's own Temporal client: flow control's coordinators are reached through it (flow-control.ts). */
  temporal: Client;
  /** Wraps the httpRequest activity to count its attempts (workflows/metrics/worker-metrics.ts). */
  meterOutbound?: (activity: HttpRequestActivity) => HttpRequestActivity;
}

type HttpRequestActivity = (input: HttpRequestInput) => Promise<HttpRequestOutput>;

export function createActivities(deps: ActivityDeps) {
  const httpRequest = createHttpRequestActivity(deps);
  return {
    httpRequest: sensitiveAware(deps.meterOutbound?.(httpRequest) ?? httpRequest),
    record: sensitiveAware(createRecordActivity(deps.records)),
    // Not sensitiveAware: its failures quote only the engine's refusal, which a flow's author needs to read.
    registerCallbackKey: createRegisterCallbackKeyActivity(deps.callbacks),
    ...createFlowControlActivities(deps.temporal),
    ...createAlertActivities(deps.alerts),
    ...createRetentionActivities(deps.housekeeping),
  };
}

export type FlowActivities = ReturnType<typeof createActivities>;
export type { HttpRequestInput, HttpRequestOutput } from './http-request.ts';
export type { RecordInput, RecordOutput, RecordOperation } from './record.ts';
export type { RegisterCallbackKeyInput, RegisterCallbackKeyOutput } from './register-callback-key.ts';
export type { RequestAdmissionInput } from './flow-control.ts';
