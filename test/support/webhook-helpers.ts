// Small helpers the end-to-end tests share: a company with a service user,
// deploying a flow, calling the webhook endpoint over real HTTP, and calling
// the engine's WebhookService directly over gRPC (as any internal caller may).
import { fromJson } from '@bufbuild/protobuf';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { eventually } from './eventually.ts';
import { INSTANCE, type TestStack } from './stack.ts';

export interface Tenant {
  company: string;
  userName: string;
  accessKey: string;
  auth: string;
}

export async function createTenant(
  stack: TestStack,
  company = 'Acme Ltd.',
  permissionSet = 'FLOW ALL',
): Promise<Tenant> {
  await stack.admin.createCompany({ name: company });
  const userName = `svc-${Math.random().toString(36).slice(2, 8)}`;
  const { accessKey } = await stack.admin.createUser({ name: userName, company, permissionSet });
  return { company, userName, accessKey, auth: `Basic ${Buffer.from(`${userName}:${accessKey}`).toString('base64')}` };
}

/** Applies and publishes a flow; returns its generated secret. */
export async function deployFlow(
  stack: TestStack,
  flow: FlowJson,
  publish = true,
): Promise<{ secret: string; warnings: string[] }> {
  const applied = await stack.admin.applyFlow({ flow: fromJson(FlowSchema, flow as never), publish });
  return { secret: applied.secret, warnings: applied.warnings };
}

export interface WebhookCall {
  company: string;
  activity: string;
  secret: string;
  auth?: string;
  /** The payload's JSON text, sent as is. */
  payloadText?: string;
  headers?: Record<string, string>;
}

export interface WebhookAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The envelope's `value`, parsed, when the call succeeded. */
  value?: { statusCode: number; contentType: string; body: string };
  executionId: string | null;
}

export function webhookUrl(stack: TestStack, company: string): string {
  return `${stack.facadeUrl}/${INSTANCE}/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(company)}`;
}

export async function callWebhook(stack: TestStack, call: WebhookCall): Promise<WebhookAnswer> {
  const body = `{"activity": ${JSON.stringify(call.activity)}, "secret": ${JSON.stringify(call.secret)}, "payload": ${call.payloadText ?? '{}'}}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...call.headers };
  if (call.auth) headers.authorization = call.auth;
  const response = await fetch(webhookUrl(stack, call.company), { method: 'POST', headers, body });
  const text = await response.text();
  const answer: WebhookAnswer = {
    status: response.status,
    headers: response.headers,
    text,
    executionId: response.headers.get('x-flowhook-execution-id'),
  };
  if (response.status === 200) answer.value = JSON.parse(JSON.parse(text).value);
  return answer;
}

/** A minimal flow definition; tests override what they exercise. */
export function flow(company: string, name: string, webhook: Record<string, unknown>, steps: unknown[]): FlowJson {
  return {
    company,
    name,
    description: `test flow ${name}`,
    trigger: { webhook: { description: `trigger of ${name}`, ...webhook } },
    steps,
  } as FlowJson;
}

/** Workflow executions of a task queue, as an operator sees them in Temporal. */
export async function countExecutions(stack: TestStack, activity: string): Promise<number> {
  let count = 0;
  for await (const execution of stack.temporal.workflow.list({
    query: `TaskQueue = "${stack.taskQueue}" AND FlowActivity = "${activity}"`,
  })) {
    if (execution) count++;
  }
  return count;
}

/** Runs listed under a workflow id, waiting for visibility (eventually consistent) to show at least one. */
export async function runsOf(temporal: TestStack['temporal'], workflowId: string): Promise<number> {
  const count = async () => {
    let runs = 0;
    for await (const _ of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs++;
    return runs;
  };
  return eventually(count, { until: (runs) => runs > 0, intervalMs: 200, what: `a run of ${workflowId} listed` });
}

/**
 * Executions of the activity once visibility (eventually consistent) shows at least `atLeast` of
 * them: a count that must not exceed a number is checked after waiting for it.
 */
export async function countVisibleExecutions(stack: TestStack, activity: string, atLeast: number): Promise<number> {
  return eventually(() => countExecutions(stack, activity), {
    until: (count) => count >= atLeast,
    intervalMs: 250,
    what: `${atLeast} executions of ${activity} listed`,
  });
}

/**
 * Executions of the activity once visibility shows `expected` of them, counted again after a
 * while: one that a refused call started by mistake would be listed by then. Waiting that while
 * is the point (nothing more may appear); the expected ones are waited for, not slept for.
 */
export async function countSettledExecutions(
  stack: TestStack,
  activity: string,
  expected: number,
  settleMs = 3000,
): Promise<number> {
  await countVisibleExecutions(stack, activity, expected);
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  return countExecutions(stack, activity);
}

/** The engine's WebhookService over gRPC with the facade's service account token (it may pass callers on). */
export function engineWebhookClient(stack: TestStack): Client<typeof WebhookService> {
  return createClient(
    WebhookService,
    createGrpcTransport({
      baseUrl: stack.engineUrl,
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${stack.serviceToken}`);
          return next(request);
        },
      ],
    }),
  );
}

/**
 * A 500 names the execution and the failed step, never the reason (it may name internal URLs,
 * addresses or record keys): this returns the full reason from the execution's failure in Temporal.
 */
export async function failureReasonOf(
  stack: TestStack,
  answer: WebhookAnswer,
): Promise<{ callerMessage: string; reason: string }> {
  const callerMessage = (JSON.parse(answer.text) as { error: { message: string } }).error.message;
  const executionId = /\(execution ([^)]+)\)/.exec(callerMessage)?.[1];
  if (!executionId) throw new Error(`no execution id in ${callerMessage}`);
  try {
    await stack.temporal.workflow.getHandle(executionId).result();
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause;
    return { callerMessage, reason: cause?.message ?? String(error) };
  }
  throw new Error(`execution ${executionId} did not fail`);
}
