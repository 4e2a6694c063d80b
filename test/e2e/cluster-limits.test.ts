// Cluster-wide admission control: two engines on one database share every
// limit — each applies half while both heartbeat (engine_node), so a flood of
// one (company, activity) through both is held to the configured rate — and
// the survivor takes the whole limit back once the other stops. Then the
// per-company and global limits refuse with messages naming them.
import test from 'ava';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { readEngineConfig } from '../../engine/config.ts';
import { runEngine, type RunningEngine } from '../../engine/main.ts';
import { equalTo, eventually } from '../support/eventually.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import {
  callWebhook,
  createTenant,
  deployFlow,
  flow,
  type Tenant,
  type WebhookAnswer,
} from '../support/webhook-helpers.ts';

const RATE = 4;
const BURST = 8;

let stack: TestStack;
let limitsStack: TestStack;
let second: RunningEngine | undefined;
const secrets: Record<string, string> = {};
let alpha: Tenant;
let beta: Tenant;

test.before(async () => {
  // No worker: admitted calls start executions that wait in the task queue; only admission matters here.
  [stack, limitsStack] = await Promise.all([
    startStack({
      withoutWorker: true,
      env: {
        FLOWHOOK_RATE_LIMIT_PER_CALLER: '0',
        FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: String(RATE),
        FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: String(BURST),
      },
    }),
    startStack({
      withoutWorker: true,
      env: {
        FLOWHOOK_RATE_LIMIT_PER_CALLER: '0',
        FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: '0',
        FLOWHOOK_RATE_LIMIT_PER_COMPANY: '1',
        FLOWHOOK_RATE_LIMIT_PER_COMPANY_BURST: '10',
        FLOWHOOK_RATE_LIMIT_GLOBAL: '1',
        FLOWHOOK_RATE_LIMIT_GLOBAL_BURST: '12',
      },
    }),
  ]);
  const tenant = await createTenant(stack);
  for (const activity of ['cluster.flood', 'cluster.after']) {
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), { activity }, []))
    ).secret;
  }
  alpha = await createTenant(limitsStack, 'Alpha Co');
  beta = await createTenant(limitsStack, 'Beta Co');
  for (const tenant of [alpha, beta]) {
    for (const activity of ['limits.one', 'limits.two']) {
      secrets[`${tenant.company}/${activity}`] = (
        await deployFlow(limitsStack, flow(tenant.company, activity.replace('.', '-'), { activity }, []))
      ).secret;
    }
  }
});

test.after.always(async () => {
  await second?.close();
  await stack?.close();
  await limitsStack?.close();
});

/** An internal service's client of one engine (its invoke account is its own caller). */
function webhookClient(port: number): Client<typeof WebhookService> {
  return createClient(
    WebhookService,
    createGrpcTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      interceptors: [
        (next) => (request) => {
          request.header.set('authorization', `Bearer ${stack.tokens.internal}`);
          return next(request);
        },
      ],
    }),
  );
}

interface Tally {
  admitted: number;
  refused: number;
}

/** Invokes the activity until `until`, `concurrency` calls at a time; counts what was admitted and refused (429). */
async function flood(
  client: Client<typeof WebhookService>,
  activity: string,
  until: number,
  concurrency: number,
): Promise<Tally> {
  const tally: Tally = { admitted: 0, refused: 0 };
  const company = 'Acme Ltd.';
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) await invokeCounted(client, company, activity, tally);
    }),
  );
  return tally;
}

async function invokeCounted(
  client: Client<typeof WebhookService>,
  company: string,
  activity: string,
  tally: Tally,
): Promise<void> {
  try {
    await client.invoke({ company, activity, secret: secrets[activity]!, payloadJson: '{}' });
    tally.admitted++;
  } catch (error) {
    const refused = ConnectError.from(error);
    if (refused.code !== Code.ResourceExhausted) throw refused;
    tally.refused++;
  }
}

async function engineRows(): Promise<number> {
  const rows = await stack.engine.orm.em
    .getConnection()
    .execute<{ n: number }[]>(`select count(*)::int as n from "engine_node"`);
  return rows[0]!.n;
}

test.serial('two engines on one database admit together no more than the limit, each its share', async (t) => {
  second = await runEngine(readEngineConfig(stack.env));
  // The second engine counts the first at once; the first learns of the second at its next heartbeat (5 s).
  t.is(second.liveEngines(), 2);
  await eventually(() => stack.engine.liveEngines(), {
    until: equalTo(2),
    timeoutMs: 10_000,
    what: 'the first engine counts two engines',
  });
  t.is(await engineRows(), 2);

  const started = performance.now();
  const until = Date.now() + 4000;
  const [first, other] = await Promise.all([
    flood(webhookClient(stack.engine.port), 'cluster.flood', until, 3),
    flood(webhookClient(second.port), 'cluster.flood', until, 3),
  ]);
  const elapsedSeconds = (performance.now() - started) / 1000;
  const admitted = first.admitted + other.admitted;
  t.log(
    `in ${elapsedSeconds.toFixed(1)} s: engine 1 admitted ${first.admitted} refused ${first.refused}; engine 2 admitted ${other.admitted} refused ${other.refused}`,
  );
  // Both engines took part, and both were held: the flood was far above the limit.
  t.true(first.admitted > 0 && other.admitted > 0);
  t.true(first.refused > 0 && other.refused > 0);
  // Each engine starts with half the burst: together at least the whole burst…
  t.true(admitted >= BURST, `admitted ${admitted}`);
  // …and never more than the cluster-wide limit allows in that time (one token of rounding).
  t.true(
    admitted <= RATE * elapsedSeconds + BURST + 1,
    `admitted ${admitted} in ${elapsedSeconds.toFixed(2)} s; the limit allows ${(RATE * elapsedSeconds + BURST).toFixed(1)}`,
  );
});

test.serial('when one engine stops, its row goes and the other takes the whole limit within a heartbeat', async (t) => {
  const stopped = performance.now();
  await second!.close();
  second = undefined;
  t.is(await engineRows(), 1, 'a graceful stop deletes the engine_node row');
  await eventually(() => stack.engine.liveEngines(), {
    until: equalTo(1),
    timeoutMs: 10_000,
    what: 'the first engine counts itself alone',
  });
  t.log(`the share returned ${((performance.now() - stopped) / 1000).toFixed(1)} s after the stop`);
  // A key new to the engine starts with the whole burst now (half of it, 4, while two engines ran).
  const client = webhookClient(stack.engine.port);
  const tally: Tally = { admitted: 0, refused: 0 };
  const sent = performance.now();
  await Promise.all(
    Array.from({ length: BURST + 6 }, () => invokeCounted(client, 'Acme Ltd.', 'cluster.after', tally)),
  );
  const elapsedSeconds = (performance.now() - sent) / 1000;
  t.true(tally.admitted >= BURST, `admitted ${tally.admitted}`);
  t.true(
    tally.admitted <= BURST + RATE * elapsedSeconds + 1,
    `admitted ${tally.admitted} in ${elapsedSeconds.toFixed(2)} s`,
  );
  t.true(tally.refused > 0);
});

const call = (tenant: Tenant, activity: string) =>
  callWebhook(limitsStack, {
    company: tenant.company,
    activity,
    secret: secrets[`${tenant.company}/${activity}`]!,
    auth: tenant.auth,
  });

function refusalsOf(answers: WebhookAnswer[]): string[] {
  return answers
    .filter((answer) => answer.status === 429)
    .map((answer) => JSON.parse(answer.text).error.message as string);
}

test.serial(
  'the per-company limit spans all activities of a company and says so; the global one spans all companies',
  async (t) => {
    const metricsUrl = `http://127.0.0.1:${limitsStack.engine.metrics!.port}/metrics`;
    // Alpha: 16 calls over two activities at once against its 10 (1 per second).
    const sent = performance.now();
    const alphaAnswers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => call(alpha, i % 2 ? 'limits.one' : 'limits.two')),
    );
    const elapsedSeconds = (performance.now() - sent) / 1000;
    const alphaAdmitted = alphaAnswers.filter((answer) => answer.status === 200).length;
    t.true(
      alphaAdmitted >= 10 && alphaAdmitted <= 10 + elapsedSeconds + 1,
      `Alpha admitted ${alphaAdmitted} in ${elapsedSeconds.toFixed(2)} s`,
    );
    const alphaRefusals = refusalsOf(alphaAnswers);
    t.is(alphaRefusals.length, 16 - alphaAdmitted);
    for (const message of alphaRefusals)
      t.regex(
        message,
        /^Too many calls for company "Alpha Co" \(FLOWHOOK_RATE_LIMIT_PER_COMPANY\); retry after [1-9][0-9]* s$/,
      );
    for (const answer of alphaAnswers.filter((a) => a.status === 429))
      t.regex(answer.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);

    // Beta has its own 10, but the deployment only 12 in all: Beta meets the global limit first.
    const betaAnswers = await Promise.all(Array.from({ length: 10 }, () => call(beta, 'limits.one')));
    const betaAdmitted = betaAnswers.filter((answer) => answer.status === 200).length;
    t.true(betaAdmitted < 10, `Beta admitted ${betaAdmitted}`);
    const betaRefusals = refusalsOf(betaAnswers);
    t.true(betaRefusals.length > 0);
    for (const message of betaRefusals)
      t.regex(
        message,
        /^Too many calls for all companies together \(FLOWHOOK_RATE_LIMIT_GLOBAL\); retry after [1-9][0-9]* s$/,
      );

    const metrics = await (await fetch(metricsUrl)).text();
    t.regex(metrics, new RegExp(`flowhook_engine_rate_limited_total\\{limit="company"\\} ${alphaRefusals.length}\\b`));
    t.regex(metrics, new RegExp(`flowhook_engine_rate_limited_total\\{limit="global"\\} ${betaRefusals.length}\\b`));
    t.regex(metrics, /flowhook_engine_live_engines 1\b/);
  },
);
