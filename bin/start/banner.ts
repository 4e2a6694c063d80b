// What `flowhook start` prints once everything runs.
import { join } from 'node:path';
import { SEED_USER, type SeedResult } from './seed.ts';

export interface BannerInfo {
  webhookUrl: string;
  metadataUrl: string;
  /** The facade's listen address: loopback only, or open to the network. */
  facadeHost: string;
  engineUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  /** The engine's codec server, when one runs (the Web UI's codec endpoint). */
  codecUrl?: string;
  /** Each component's GET /metrics (the engine's and worker's unless their port is off). */
  metricsUrls?: { facade: string; engine?: string; worker?: string };
  dataDir: string;
  seed?: SeedResult;
}

/** The example flow's activity (engine/examples/hello-webhook.flow.yaml), for the lost-secret hint. */
const EXAMPLE_ACTIVITY = 'examples.hello';

function listening(host: string): string {
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  return loopback ? `${host} only (FLOWHOOK_FACADE_HOST=0.0.0.0 opens the endpoint to the network)` : `${host} — the endpoint is open to the network`;
}

export function banner(info: BannerInfo): string {
  const lines = [
    '',
    'flowhook is running',
    `  webhook endpoint  POST ${info.webhookUrl}`,
    `  OData metadata    GET  ${info.metadataUrl}`,
    `  listening on      ${listening(info.facadeHost)}`,
    `  engine (gRPC)     ${info.engineUrl}`,
    `  Temporal          ${info.temporalAddress}${info.temporalUiUrl ? `   (Web UI: ${info.temporalUiUrl})` : ''}`,
    ...(info.codecUrl ? [`  codec server      ${info.codecUrl}   (doNotLogPayload payloads in the Web UI: sign in at ${info.codecUrl}/login with the token in ${join(info.dataDir, 'admin-token')})`] : []),
    ...(info.metricsUrls ? [`  metrics           ${Object.values(info.metricsUrls).filter(Boolean).join('  ')}   (loopback, or Bearer FLOWHOOK_METRICS_TOKEN)`] : []),
    `  data              ${info.dataDir}`,
  ];
  if (info.seed) {
    const { seed } = info;
    const body = JSON.stringify({ activity: seed.activity, secret: seed.secret, payload: { name: 'Ada' } });
    lines.push(
      '',
      'First run: created company "Default", service user and the published example flow "hello-webhook".',
      'These credentials are shown ONCE — store them now:',
      `  service user             ${seed.userName}`,
      `  web service access key   ${seed.accessKey}`,
      `  flow secret (${seed.activity})  ${seed.secret}`,
      '',
      'Try it:',
      `  curl -sS -u '${seed.userName}:${seed.accessKey}' -H 'Content-Type: application/json' \\`,
      `    -d '${body}' \\`,
      `    '${info.webhookUrl}'`,
    );
  } else {
    lines.push(
      '',
      'Existing data: credentials were shown on the first run. Lost them? Make new ones (the old ones stop working):',
      `  flow secret        flowhook secret rotate Default ${EXAMPLE_ACTIVITY}`,
      `  access key         flowhook user regenerate-key ${SEED_USER}`,
    );
  }
  lines.push('', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}

/**
 * `flowhook start --json`: the same facts as one JSON line on stdout, for scripts that start
 * flowhook and need its URLs (and, on the first run, the credentials shown once).
 */
export function bannerJson(info: BannerInfo): string {
  const { seed } = info;
  return `${JSON.stringify({
    status: 'running',
    webhookUrl: info.webhookUrl,
    metadataUrl: info.metadataUrl,
    facadeHost: info.facadeHost,
    engineUrl: info.engineUrl,
    temporalAddress: info.temporalAddress,
    temporalUiUrl: info.temporalUiUrl ?? null,
    codecUrl: info.codecUrl ?? null,
    codecLoginUrl: info.codecUrl ? `${info.codecUrl}/login` : null,
    metricsUrls: info.metricsUrls ?? null,
    dataDir: info.dataDir,
    firstRun: seed ? { company: seed.company, serviceUser: seed.userName, accessKey: seed.accessKey, activity: seed.activity, secret: seed.secret } : null,
    replaceLostCredentials: seed ? null : { flowSecret: `flowhook secret rotate Default ${EXAMPLE_ACTIVITY}`, accessKey: `flowhook user regenerate-key ${SEED_USER}` },
  })}\n`;
}
