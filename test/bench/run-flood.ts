// `npm run bench:flood`: what floods of made-up names do to a running
// `flowhook start` (issue 25, point 1). Two floods an unauthenticated outsider
// can send — unsigned provider calls whose company and activity are long random
// text, and Basic calls whose user names are — each measured by the resident
// memory of the one flowhook process before and after, and followed by a real
// call that must still be answered. Targets: each flood changes the resident
// memory by less than 64 MiB, and the process keeps answering.
// FLOOD_PROVIDER_CALLS / FLOOD_BASIC_CALLS / FLOOD_CONCURRENCY shape the run;
// FLOOD_KINDS=provider or =basic runs one of the two.
import { randomBytes, randomInt } from 'node:crypto';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromJson } from '@bufbuild/protobuf';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { peakRssMiB, startBenchStack } from './bench-stack.ts';
import { httpPoster, INSTANT_STEPS, PAYLOAD, providerCall, PROVIDER_STEPS, facadeCall } from './scenarios.ts';

const log = (message: string) => process.stderr.write(`flood: ${message}\n`);
const PROVIDER_CALLS = Number(process.env.FLOOD_PROVIDER_CALLS || 20_000);
const BASIC_CALLS = Number(process.env.FLOOD_BASIC_CALLS || 10_000);
const CONCURRENCY = Number(process.env.FLOOD_CONCURRENCY || 32);
const KINDS = new Set((process.env.FLOOD_KINDS || 'provider,basic').split(',').map((kind) => kind.trim()));
const TARGET_MIB = 64;
const COMPANY = 'Flood';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

interface FloodResult {
  name: string;
  calls: number;
  statuses: Record<string, number>;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  growthMiB: number;
  stillAnswers: boolean;
  alive: boolean;
}

// The route limit keeps its default here (the throughput bench lifts it): the flood is what it meets.
const stack = await startBenchStack({ ...process.env, BENCH_ALL_IN_ONE: '1' }, log, {
  FLOWHOOK_RATE_LIMIT_PER_HOOK_ROUTE: '100',
});
try {
  const [start] = stack.processes;
  const admin = createAdminClient({
    engineUrl: stack.engineUrl,
    adminToken: stack.adminToken,
    engineTls: stack.adminTls,
  });
  await admin.createCompany({ name: COMPANY });
  const { accessKey } = await admin.createUser({ name: 'flood-user', company: COMPANY });
  const { secret } = await admin.applyFlow({
    flow: fromJson(FlowSchema, {
      company: COMPANY,
      name: 'flood.instant',
      trigger: { webhook: { activity: 'flood.instant' } },
      steps: INSTANT_STEPS,
    } as never),
    publish: true,
  });
  await admin.applyFlow({
    flow: fromJson(FlowSchema, {
      company: COMPANY,
      name: 'flood.stripe',
      trigger: { webhook: { activity: 'flood.stripe', direct: { verify: { stripe: {} } } } },
      steps: PROVIDER_STEPS,
    } as never),
    publish: true,
  });
  const stripeSecret = `whsec_${randomBytes(24).toString('hex')}`;
  await admin.setHookSecret({ company: COMPANY, activity: 'flood.stripe', secret: stripeSecret });

  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const invokeUrl = `${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${COMPANY}`;
  const counter = { executions: 0 };
  const realCall = facadeCall(
    httpPoster(
      invokeUrl,
      `{"activity": "flood.instant", "secret": "${secret}", "payload": ${PAYLOAD}}`,
      basic('flood-user', accessKey),
      agent,
    ),
    'instant-return',
    counter,
  );
  const realProviderCall = providerCall(
    `${stack.facadeUrl}/BC/hooks/${COMPANY}/flood.stripe`,
    stripeSecret,
    agent,
    counter,
  );
  const stillAnswers = async () => {
    try {
      await realCall();
      await realProviderCall();
      return true;
    } catch (error) {
      log(`a real call failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };
  // Warm: the caches and code paths the floods use exist before the first reading.
  for (let i = 0; i < 20; i++) await stillAnswers();

  const floods: FloodResult[] = [];
  const flood = async (name: string, calls: number, send: () => Promise<number>) => {
    await settle();
    const rssBeforeMiB = rssMiB(start!.pid);
    log(`${name}: ${calls} calls, RSS before ${rssBeforeMiB} MiB`);
    const statuses: Record<string, number> = {};
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < calls) {
          next++;
          const status = await send().then(String, (error: unknown) =>
            error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : 'error',
          );
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    await settle();
    const alive = isAlive(start!.pid);
    const rssAfterMiB = alive ? rssMiB(start!.pid) : 0;
    const result = {
      name,
      calls,
      statuses,
      rssBeforeMiB,
      rssAfterMiB,
      growthMiB: rssAfterMiB - rssBeforeMiB,
      stillAnswers: alive && (await stillAnswers()),
      alive,
    };
    log(
      `${name}: ${JSON.stringify(statuses)}; RSS after ${rssAfterMiB} MiB (${result.growthMiB >= 0 ? '+' : ''}${result.growthMiB}); still answers: ${result.stillAnswers}`,
    );
    floods.push(result);
  };

  // 1. Unsigned provider calls to made-up routes: 7,000 random characters each for company and activity.
  if (KINDS.has('provider'))
    await flood('unsigned provider calls, 7,000-character company and activity', PROVIDER_CALLS, async () => {
      const answer = await httpPoster(
        `${stack.facadeUrl}/BC/hooks/${randomName(7000)}/${randomName(7000)}`,
        '{}',
        {},
        agent,
      )();
      return answer.status;
    });
  // 2. Basic calls with made-up 10,000-character user names.
  if (KINDS.has('basic') && isAlive(start!.pid))
    await flood('Basic calls, 10,000-character user names', BASIC_CALLS, async () => {
      const answer = await httpPoster(
        invokeUrl,
        `{"activity": "flood.instant", "secret": "x", "payload": {}}`,
        basic(randomName(10_000), 'not-a-key'),
        agent,
      )();
      return answer.status;
    });

  const report = {
    date: new Date().toISOString(),
    cores: availableParallelism(),
    node: process.version,
    concurrency: CONCURRENCY,
    targetMiB: TARGET_MIB,
    peakRssMiB: isAlive(start!.pid) ? peakRssMiB(start!.pid) : undefined,
    floods,
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}latest-flood.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${dir}latest-flood.md`, `${markdown(report)}\n`);
  process.stdout.write(`${markdown(report)}\n`);
  agent.destroy();
  process.exitCode = floods.every((f) => f.alive && f.stillAnswers && f.growthMiB < TARGET_MIB) ? 0 : 1;
} finally {
  await stack.stop();
}

function basic(user: string, key: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` };
}

function randomName(length: number): string {
  let name = '';
  for (let i = 0; i < length; i++) name += ALPHABET[randomInt(ALPHABET.length)];
  return name;
}

/** Current resident set size (VmRSS) in MiB. */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.match(/(\d+)/)?.[1] ?? 0) / 1024);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Gives the process a few idle seconds, so what a reading shows is retained, not in flight. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5000));
}

function markdown(report: {
  date: string;
  cores: number;
  node: string;
  concurrency: number;
  targetMiB: number;
  peakRssMiB?: number;
  floods: FloodResult[];
}): string {
  const rows = report.floods.map(
    (f) =>
      `| ${f.name} | ${f.calls} | ${Object.entries(f.statuses)
        .map(([status, count]) => `${status}: ${count}`)
        .join(
          ', ',
        )} | ${f.rssBeforeMiB} | ${f.alive ? f.rssAfterMiB : 'died'} | ${f.alive ? `${f.growthMiB >= 0 ? '+' : ''}${f.growthMiB}` : '—'} | ${f.stillAnswers ? 'yes' : 'no'} |`,
  );
  return [
    `Flood run ${report.date} — ${report.cores} cores, Node ${report.node}, \`flowhook start\` (one process), ${report.concurrency} connections; target: growth < ${report.targetMiB} MiB and still answering`,
    '',
    '| flood | calls | answers | RSS before (MiB) | RSS after (MiB) | growth (MiB) | real calls still answered |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Peak RSS of the process over the run: ${report.peakRssMiB ?? 'n/a (it died)'} MiB.`,
  ].join('\n');
}
