// `npm run bench`: flowhook against its floor (the same Temporal driven by a
// bare client) and a bare Koa ceiling, in one run on one machine, as ratios.
// Not part of `npm test`. Scenario F is the provider route (Stripe-signed,
// Instant return) next to A. BENCH_SECONDS (default 6) sets each cell's length;
// BENCH_SCENARIOS (e.g. "A,C") and BENCH_CONCURRENCIES (e.g. "1,50") narrow a
// run for profiling. BENCH_ENGINE_TLS=1 or =mutual serves the engine's port
// over TLS or mutual TLS (bench-tls.ts), to measure what that hop's encryption costs.
// `npm run bench -- --temporal server` (or FLOWHOOK_TEMPORAL=server) measures on the
// official Temporal server with PostgreSQL persistence instead of the dev server;
// `--all-in-one` measures engine, worker and facade in one `flowhook start`.
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { cpuSeconds, peakRssMiB, startBenchStack } from './bench-stack.ts';
import { runLoad } from './load-loop.ts';
import { startMemorySampler } from './memory-sampler.ts';
import { markdown, type BenchReport, type ScenarioRun } from './report.ts';
import { runBurst, type BurstResult } from './burst.ts';
import {
  ceilingCall,
  facadeCall,
  floorInput,
  floorStart,
  floorUpdateWithStart,
  httpPoster,
  INSTANT_STEPS,
  keyedCall,
  keyedFacadeCall,
  PAYLOAD,
  PROVIDER_STEPS,
  providerCall,
  SYNC_STEPS,
  type Counter,
} from './scenarios.ts';

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const seconds = Number(process.env.BENCH_SECONDS || 6);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCIES || '1,10,50').split(',').map(Number);
const SCENARIOS = new Set(
  (process.env.BENCH_SCENARIOS || 'A,B,C,D,E,F,G,H,I,J').split(',').map((s) => s.trim().toUpperCase()),
);
const BURST_CALLS = Number(process.env.BENCH_BURST_CALLS || 10_000);
const COMPANY = 'Bench';

const stack = await startBenchStack(process.env, log);
try {
  const admin = createAdminClient({
    engineUrl: stack.engineUrl,
    adminToken: stack.adminToken,
    engineTls: stack.adminTls,
  });
  await admin.createCompany({ name: COMPANY });
  const { accessKey } = await admin.createUser({ name: 'bench-user', company: COMPANY });
  const deploy = async (activity: string, mode: string, steps: unknown[], control: Record<string, unknown> = {}) =>
    (
      await admin.applyFlow({
        flow: fromJson(FlowSchema, {
          company: COMPANY,
          name: activity,
          trigger: { webhook: { activity, responseMode: mode, ...control } },
          steps,
        } as never),
        publish: true,
      })
    ).secret;
  const instantSecret = await deploy('bench.instant', 'INSTANT_RETURN', INSTANT_STEPS);
  const syncSecret = await deploy('bench.sync', 'WAIT_FOR_RESPONSE_STEP', SYNC_STEPS);
  // G, H, I: A's flow with flow control (docs/how-to/control-how-calls-become-executions.md); the key is the payload's `account`.
  const keyedSecret = await deploy('bench.keyed', 'INSTANT_RETURN', INSTANT_STEPS, {
    concurrency: { key: '${Trigger.Payload.account}', limit: 1 },
  });
  const debouncedSecret = await deploy('bench.debounced', 'INSTANT_RETURN', INSTANT_STEPS, {
    debounce: { key: '${Trigger.Payload.account}', period: '1s' },
  });
  // F: the same Instant flow's steps behind the provider route, verified as Stripe.
  await admin.applyFlow({
    flow: fromJson(FlowSchema, {
      company: COMPANY,
      name: 'bench.stripe',
      trigger: { webhook: { activity: 'bench.stripe', direct: { verify: { stripe: {} } } } },
      steps: PROVIDER_STEPS,
    } as never),
    publish: true,
  });
  const stripeSecret = `whsec_${randomBytes(24).toString('hex')}`;
  await admin.setHookSecret({ company: COMPANY, activity: 'bench.stripe', secret: stripeSecret });

  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection });
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const auth = { authorization: `Basic ${Buffer.from(`bench-user:${accessKey}`).toString('base64')}` };
  const url = `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${COMPANY}`;
  const body = (activity: string, secret: string) =>
    `{"activity": "${activity}", "secret": "${secret}", "payload": ${PAYLOAD}}`;
  const counter: Counter = { executions: 0 };
  const scenarios: { scenario: ScenarioRun['scenario']; label: string; call: () => Promise<void> }[] = [
    {
      scenario: 'E',
      label: 'bare Koa ceiling',
      call: ceilingCall(httpPoster(stack.ceilingUrl, body('bench.instant', instantSecret), {}, agent)),
    },
    {
      scenario: 'A',
      label: 'instant via flowhook',
      call: facadeCall(httpPoster(url, body('bench.instant', instantSecret), auth, agent), 'instant-return', counter),
    },
    {
      scenario: 'F',
      label: 'instant via the provider route (Stripe-signed)',
      call: providerCall(`${stack.facadeUrl}/BC/hooks/${COMPANY}/bench.stripe`, stripeSecret, agent, counter),
    },
    {
      scenario: 'C',
      label: 'instant floor (bare start)',
      call: floorStart(
        client,
        stack.taskQueue,
        floorInput(COMPANY, 'bench.instant', 'INSTANT_RETURN', INSTANT_STEPS),
        counter,
      ),
    },
    {
      scenario: 'B',
      label: 'sync via flowhook',
      call: facadeCall(httpPoster(url, body('bench.sync', syncSecret), auth, agent), 'responded', counter),
    },
    {
      scenario: 'D',
      label: 'sync floor (bare Update-With-Start)',
      call: floorUpdateWithStart(
        client,
        stack.taskQueue,
        floorInput(COMPANY, 'bench.sync', 'WAIT_FOR_RESPONSE_STEP', SYNC_STEPS),
        counter,
      ),
    },
    {
      scenario: 'G',
      label: 'instant, concurrency key (one key, limit 1)',
      call: keyedFacadeCall(url, 'bench.keyed', keyedSecret, 1, auth, agent, counter),
    },
    {
      scenario: 'H',
      label: 'instant, concurrency key (50 keys, limit 1)',
      call: keyedFacadeCall(url, 'bench.keyed', keyedSecret, 50, auth, agent, counter),
    },
    {
      scenario: 'I',
      label: 'instant, debounce (50 keys, period 1 s)',
      call: keyedFacadeCall(url, 'bench.debounced', debouncedSecret, 50, auth, agent),
    },
  ];

  const runs: ScenarioRun[] = [];
  const memory = startMemorySampler(stack.processes);
  for (const concurrency of CONCURRENCIES) {
    for (const { scenario, label, call } of scenarios.filter((s) => SCENARIOS.has(s.scenario))) {
      await drained(client, stack.taskQueue);
      memory.during(`${scenario} c=${concurrency}`);
      const before = Object.fromEntries(stack.processes.map((p) => [p.name, cpuSeconds(p.pid)]));
      const result = await runLoad({ concurrency, warmupMs: 2000, durationMs: seconds * 1000, call });
      const cpu = Object.fromEntries(
        stack.processes.map((p) => [p.name, Math.round((cpuSeconds(p.pid) - before[p.name]!) * 10) / 10]),
      );
      runs.push({ scenario, label, result, cpu });
      log(
        `${scenario} c=${concurrency}: ${result.throughput} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors}${result.firstError ? ` (${result.firstError})` : ''}`,
      );
    }
  }

  let burst: BurstResult | undefined;
  if (SCENARIOS.has('J')) {
    await drained(client, stack.taskQueue);
    memory.during('J');
    burst = await runBurst({
      calls: BURST_CALLS,
      concurrency: 50,
      call: keyedCall(url, 'bench.keyed', keyedSecret, auth, agent),
      temporal: client,
      flowQuery: `WorkflowType = "flowWorkflow" AND TaskQueue = "${stack.taskQueue}" AND FlowActivity = "bench.keyed"`,
      cpu: () => Object.fromEntries(stack.processes.map((p) => [p.name, cpuSeconds(p.pid)])),
      log,
      drainTimeoutMs: 30 * 60_000,
    });
    counter.executions += burst.accepted + burst.otherKeyWaitMs.samples;
    log(
      `J: drain ${burst.drainPerSecond}/s, other key waited p50 ${burst.otherKeyWaitMs.p50} ms (max ${burst.otherKeyWaitMs.max}), ${burst.totalSeconds} s in all`,
    );
  }

  const memoryAtPeak = await memory.stop();
  // Every call answered as started must have its execution in Temporal (visibility lags a little).
  let found = 0;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 1000))) {
    // Flow executions only: flow control's coordinators run on the same task queue.
    found = (await client.workflow.count(`WorkflowType = "flowWorkflow" AND TaskQueue = "${stack.taskQueue}"`)).count;
    if (found >= counter.executions) break;
  }
  const report: BenchReport = {
    date: new Date().toISOString(),
    cores: availableParallelism(),
    node: process.version,
    seconds,
    engineTls: stack.engineTls,
    temporal: stack.temporalKind,
    allInOne: stack.allInOne,
    runs,
    peakRssMiB: Object.fromEntries(stack.processes.map((p) => [p.name, peakRssMiB(p.pid)])),
    memoryAtPeak,
    executions: { expected: counter.executions, found, missing: Math.max(0, counter.executions - found) },
    ...(burst && { burst }),
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  // Kept side by side: latest.* (dev server), latest-server.* (the real server), and -all-in-one for `flowhook start`.
  const name = `${stack.temporalKind.startsWith('server') ? 'latest-server' : 'latest'}${stack.allInOne ? '-all-in-one' : ''}`;
  writeFileSync(`${dir}${name}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${dir}${name}.md`, `${markdown(report)}\n`);
  process.stdout.write(`${markdown(report)}\n`);
  agent.destroy();
  await connection.close();
} finally {
  await stack.stop();
}

/** Waits until the worker has finished the executions earlier cells left, so each cell starts idle. */
async function drained(client: Client, taskQueue: string): Promise<void> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    if ((await client.workflow.count(`TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`)).count === 0) return;
  }
  log('executions still running after 120 s; measuring anyway');
}
