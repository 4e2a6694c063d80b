// Fairness between companies: every execution starts with its company as
// Temporal's fairness key, so a worker that has fallen behind one company's
// burst still serves another company's executions in turn, not after the
// burst. A worker with two slots and flows that take 200 ms each: company A
// floods it, company B then starts a few executions, and B's must all finish
// while most of A's backlog still waits — a ratio against A's own drain, so
// the machine's speed does not matter. Within a company, the flow's
// `priority` orders the backlog the same way (Temporal's priority key).
import test from 'ava';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { createTenant, deployFlow, flow } from '../support/webhook-helpers.ts';

const FLOOD = 150;
const FEW = 5;
const ACTIVITY = 'fair.slow';
const PRIORITY_COMPANY = 'Priority Co';
const LOW = 'priority.low';
const URGENT = 'priority.urgent';

let stack: TestStack;
let target: TargetServer;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack({
    env: { FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY: '2', FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY: '2' },
  });
  target = await startTargetServer(() => ({ delayMs: 200 }));
  const slowStep = {
    httpRequest: { description: 'a call that takes a while', method: 'GET', url: `${target.url}/slow` },
  };
  for (const company of ['Flood Co', 'Quiet Co']) {
    await createTenant(stack, company);
    secrets[company] = (await deployFlow(stack, flow(company, 'fair-slow', { activity: ACTIVITY }, [slowStep]))).secret;
  }
  // One company, two flows: a backlog at the lowest priority, a few calls at the highest.
  await createTenant(stack, PRIORITY_COMPANY);
  for (const [activity, priority] of [
    [LOW, 5],
    [URGENT, 1],
  ] as const) {
    secrets[activity] = (
      await deployFlow(stack, flow(PRIORITY_COMPANY, activity.replace('.', '-'), { activity, priority }, [slowStep]))
    ).secret;
  }
});

test.after.always(async () => {
  await stack?.close();
  await target?.close();
});

/** An internal service's client of the engine: starts executions for any company. */
function webhookClient(): Client<typeof WebhookService> {
  return createClient(
    WebhookService,
    createGrpcTransport({
      baseUrl: stack.engineUrl,
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${stack.tokens.internal}`);
          return next(request);
        },
      ],
    }),
  );
}

/** Starts `count` executions for the company, `concurrency` calls at a time; their ids. */
async function start(
  client: Client<typeof WebhookService>,
  company: string,
  count: number,
  concurrency: number,
  activity = ACTIVITY,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const answer = await client.invoke({
          company,
          activity,
          secret: secrets[activity === ACTIVITY ? company : activity]!,
          payloadJson: '{}',
        });
        ids.push(answer.executionId);
      }
    }),
  );
  return ids;
}

/** When each execution closed, by Temporal's clock; waits for all of them and checks each carried its company's fairness key. */
async function closeTimes(ids: string[], company: string): Promise<number[]> {
  return Promise.all(
    ids.map(async (id) => {
      const handle = stack.temporal.workflow.getHandle(id);
      await handle.result();
      const description = await handle.describe();
      if (description.status.name !== 'COMPLETED') throw new Error(`${id} ended ${description.status.name}`);
      if (description.priority?.fairnessKey !== company)
        throw new Error(
          `${id} has the fairness key ${JSON.stringify(description.priority?.fairnessKey)}, not ${company}`,
        );
      return description.closeTime!.getTime();
    }),
  );
}

test.serial("one company's flood does not hold up another company's executions", async (t) => {
  t.timeout(10 * 60_000);
  const client = webhookClient();
  const flooded = await start(client, 'Flood Co', FLOOD, 10);
  const quietStarted = Date.now();
  const quiet = await start(client, 'Quiet Co', FEW, FEW);
  const [floodDone, quietDone] = await Promise.all([closeTimes(flooded, 'Flood Co'), closeTimes(quiet, 'Quiet Co')]);
  floodDone.sort((a, b) => a - b);
  const lastQuiet = Math.max(...quietDone);
  // How much of the flood had finished when the last of the quiet company's executions did.
  const floodBefore = floodDone.filter((time) => time <= lastQuiet).length;
  const floodDrainedAt = floodDone[floodDone.length - 1]!;
  t.log(
    `Quiet Co done ${((lastQuiet - quietStarted) / 1000).toFixed(1)} s after it started, when ${floodBefore} of ${FLOOD} Flood Co executions were; Flood Co drained ${((floodDrainedAt - quietStarted) / 1000).toFixed(1)} s after that start`,
  );
  t.true(floodBefore < FLOOD / 2, `the quiet company's executions waited for ${floodBefore} of the flood's ${FLOOD}`);
});

test.serial(
  "a flow's priority: executions of a priority 1 flow go before a backlog of its company's priority 5 flow",
  async (t) => {
    t.timeout(10 * 60_000);
    const client = webhookClient();
    const backlog = await start(client, PRIORITY_COMPANY, FLOOD, 10, LOW);
    const urgentStarted = Date.now();
    const urgent = await start(client, PRIORITY_COMPANY, FEW, FEW, URGENT);
    const [backlogDone, urgentDone] = await Promise.all([
      closeTimes(backlog, PRIORITY_COMPANY),
      closeTimes(urgent, PRIORITY_COMPANY),
    ]);
    for (const [ids, key] of [
      [backlog, 5],
      [urgent, 1],
    ] as const) {
      t.is((await stack.temporal.workflow.getHandle(ids[0]!).describe()).priority?.priorityKey, key);
    }
    const lastUrgent = Math.max(...urgentDone);
    const backlogBefore = backlogDone.filter((time) => time <= lastUrgent).length;
    t.log(
      `priority 1 done ${((lastUrgent - urgentStarted) / 1000).toFixed(1)} s after it started, when ${backlogBefore} of ${FLOOD} priority 5 executions were`,
    );
    t.true(
      backlogBefore < FLOOD / 2,
      `the priority 1 executions waited for ${backlogBefore} of the backlog's ${FLOOD}`,
    );
  },
);
