// The measured scenarios. Each call checks its own outcome (status,
// execution id, the flow's answer) and counts the executions it caused, so the
// run can verify afterwards that none went missing in Temporal.
import { Agent, request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import Stripe from 'stripe';
import { executionSearchAttributes } from '../../engine/infrastructure/temporal/search-attributes.ts';
import { FLOW_WORKFLOW_TYPE, type FlowExecutionInput, type FlowWorkflow } from '../../flow/index.ts';
import { webhookResponseUpdate } from '../../flow/flow-messages.ts';

export const PAYLOAD =
  '{"order": {"id": "SO-1001", "customer": "C-42", "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 1}]}, "amount": 129.90}';

export const INSTANT_STEPS = [
  { set: { description: 'Read the order', variables: { orderId: '${Trigger.Payload.order.id}' } } },
];
/** F reads the same order from inside the Stripe event (Trigger.Payload is the parsed JSON body there). */
export const PROVIDER_STEPS = [
  { set: { description: 'Read the order', variables: { orderId: '${Trigger.Payload.data.object.order.id}' } } },
];
export const SYNC_STEPS = [
  { respond: { description: 'Acknowledge', statusCode: 200, body: '${ {"orderId": Trigger.Payload.order.id} }' } },
];

export interface Counter {
  executions: number;
}

export function httpPoster(url: string, body: string, headers: Record<string, string>, agent: Agent) {
  return () =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
      (resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      },
    );
}

/** A and B: through the facade; 200, an execution id, and for sync the flow's own answer. */
export function facadeCall(post: ReturnType<typeof httpPoster>, expectOutcome: string, counter: Counter) {
  return async () => {
    const answer = await post();
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    if (!answer.headers['x-flowhook-execution-id']) throw new Error('no execution id');
    counter.executions++;
    if (answer.headers['x-flowhook-outcome'] !== expectOutcome)
      throw new Error(`outcome ${String(answer.headers['x-flowhook-outcome'])}`);
  };
}

export function floorInput(
  company: string,
  activity: string,
  mode: FlowExecutionInput['trigger']['responseMode'],
  steps: unknown[],
): FlowExecutionInput {
  return {
    company,
    flowName: activity,
    flowVersion: 1,
    steps: steps as FlowExecutionInput['steps'],
    trigger: {
      activity,
      description: 'bench',
      responseMode: mode,
      syncTimeoutMs: 30_000,
      defaultResponse: { statusCode: 200, contentType: 'application/json' },
      doNotLogPayload: false,
    },
    payloadJson: PAYLOAD,
    caller: 'user:bench',
    // As the engine sets it: the same workflow with the same input.
    exactValues: true,
  };
}

/** The same search attributes the engine sets. */
function attributeValues(input: FlowExecutionInput) {
  return {
    company: input.company,
    activity: input.trigger.activity,
    flowName: input.flowName,
    flowVersion: input.flowVersion,
    responseMode: input.trigger.responseMode,
    caller: input.caller,
  };
}

/** C: the floor for A, a bare client starting the same workflow. */
export function floorStart(client: Client, taskQueue: string, input: FlowExecutionInput, counter: Counter) {
  const searchAttributes = executionSearchAttributes(attributeValues(input));
  return async () => {
    await client.workflow.start<FlowWorkflow>(FLOW_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `${input.trigger.activity}:${randomUUID()}`,
      args: [input],
      typedSearchAttributes: searchAttributes,
    });
    counter.executions++;
  };
}

/** D: the floor for B, a bare Update-With-Start waiting for the respond step. */
export function floorUpdateWithStart(client: Client, taskQueue: string, input: FlowExecutionInput, counter: Counter) {
  const searchAttributes = executionSearchAttributes(attributeValues(input));
  return async () => {
    const workflowId = `${input.trigger.activity}:${randomUUID()}`;
    const operation = new WithStartWorkflowOperation<FlowWorkflow>(FLOW_WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: searchAttributes,
    });
    const response = await client.workflow.executeUpdateWithStart(webhookResponseUpdate, {
      updateId: workflowId,
      startWorkflowOperation: operation,
    });
    counter.executions++;
    if (response.outcome !== 'RESPONDED') throw new Error(`outcome ${response.outcome}`);
  };
}

/**
 * F: the provider route, as Stripe calls it — a fresh `payment_intent.succeeded`
 * event per call (a repeated event id would join the first execution), signed
 * with the `stripe` package's own helper, verified by the engine, Instant return.
 */
export function providerCall(url: string, secret: string, agent: Agent, counter: Counter) {
  return async () => {
    const body = `{"id": "evt_${randomUUID().replaceAll('-', '')}", "object": "event", "type": "payment_intent.succeeded", "data": {"object": ${PAYLOAD}}}`;
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
    const answer = await httpPoster(url, body, { 'stripe-signature': signature }, agent)();
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    if (!answer.headers['x-flowhook-execution-id']) throw new Error('no execution id');
    counter.executions++;
    if (answer.headers['x-flowhook-outcome'] !== 'instant-return')
      throw new Error(`outcome ${String(answer.headers['x-flowhook-outcome'])}`);
  };
}

/** The order payload with a flow-control key of its own (G, H: `Trigger.Payload.account`; I: the customer to debounce). */
export function keyedPayload(key: string): string {
  return PAYLOAD.replace('{"order": {', `{"account": "${key}", "order": {`);
}

/**
 * G, H, I: through the facade like A, each call with one of `keys` in its payload, in turn. Calls of
 * a debounce flow join windows instead of starting executions of their own: they are not counted.
 */
export function keyedFacadeCall(
  url: string,
  activity: string,
  secret: string,
  keys: number,
  auth: Record<string, string>,
  agent: Agent,
  counter?: Counter,
) {
  const posts = Array.from({ length: keys }, (_, n) =>
    httpPoster(
      url,
      `{"activity": "${activity}", "secret": "${secret}", "payload": ${keyedPayload(`K-${n}`)}}`,
      auth,
      agent,
    ),
  );
  let next = 0;
  return async () => {
    const answer = await posts[next++ % keys]!();
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    if (!answer.headers['x-flowhook-execution-id']) throw new Error('no execution id');
    if (counter) counter.executions++;
    if (answer.headers['x-flowhook-outcome'] !== 'instant-return')
      throw new Error(`outcome ${String(answer.headers['x-flowhook-outcome'])}`);
  };
}

/** J: one call of the keyed flow for the given key; its execution id, or a throw when it was not accepted. */
export function keyedCall(url: string, activity: string, secret: string, auth: Record<string, string>, agent: Agent) {
  return async (key: string): Promise<string> => {
    const answer = await httpPoster(
      url,
      `{"activity": "${activity}", "secret": "${secret}", "payload": ${keyedPayload(key)}}`,
      auth,
      agent,
    )();
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    const executionId = answer.headers['x-flowhook-execution-id'];
    if (typeof executionId !== 'string') throw new Error('no execution id');
    return executionId;
  };
}

/** E: the ceiling, a minimal Koa endpoint parsing the same body. */
export function ceilingCall(post: ReturnType<typeof httpPoster>) {
  return async () => {
    const answer = await post();
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status}`);
  };
}
