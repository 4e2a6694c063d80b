// What `flowhook start` prints once everything runs.
import { join } from 'node:path';
import type { FirstRunFiles } from './first-run-credentials.ts';
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
  /** The web console, when one runs. */
  consoleUrl?: string;
  /** Each component's GET /metrics on its metrics port (unless that port is off). */
  metricsUrls?: { facade?: string; engine?: string; worker?: string };
  dataDir: string;
  seed?: SeedResult;
  /** With seed: where the first run's credentials went (first-run-credentials.ts); no `credentials` file: shown here. */
  firstRunFiles?: FirstRunFiles;
}

/** The example flow's activity (examples/flows/hello-webhook.flow.yaml), for the lost-secret hint. */
const EXAMPLE_ACTIVITY = 'examples.hello';

function listening(host: string): string {
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  return loopback
    ? `${host} only (FLOWHOOK_FACADE_HOST=0.0.0.0 opens the endpoint to the network)`
    : `${host} — the endpoint is open to the network`;
}

export function banner(info: BannerInfo): string {
  const lines = [
    '',
    'flowhook is running',
    `  webhook endpoint  POST ${info.webhookUrl}`,
    ...(info.consoleUrl
      ? [
          `  console           ${info.consoleUrl}   (sign in with the admin token in ${join(info.dataDir, 'admin-token')})`,
        ]
      : []),
    `  OData metadata    GET  ${info.metadataUrl}`,
    `  listening on      ${listening(info.facadeHost)}`,
    `  engine (gRPC)     ${info.engineUrl}`,
    `  Temporal          ${info.temporalAddress}${info.temporalUiUrl ? `   (Web UI: ${info.temporalUiUrl})` : ''}`,
    ...(info.codecUrl
      ? [
          `  codec server      ${info.codecUrl}   (doNotLogPayload payloads in the Web UI: sign in at ${info.codecUrl}/login with the token in ${join(info.dataDir, 'admin-token')})`,
        ]
      : []),
    ...(info.metricsUrls
      ? [
          `  metrics           ${Object.values(info.metricsUrls).filter(Boolean).join('  ')}   (loopback, or Bearer FLOWHOOK_METRICS_TOKEN)`,
        ]
      : []),
    `  data              ${info.dataDir}`,
  ];
  if (info.seed && info.firstRunFiles) {
    lines.push('', ...firstRunLines(info.seed, info.firstRunFiles, info.webhookUrl));
  } else {
    lines.push(
      '',
      'Existing data: credentials were given out on the first run. Lost them? Make new ones (the old ones stop working):',
      `  flow secret        flowhook secret rotate Default ${EXAMPLE_ACTIVITY}`,
      `  access key         flowhook user rotate-key ${SEED_USER}`,
    );
  }
  lines.push('', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}

/**
 * The first run's credentials on a terminal, or where they are when stdout is not one (a log
 * would keep them). Either way the curl reads the key from the netrc file, out of the process list.
 */
function firstRunLines(seed: SeedResult, files: FirstRunFiles, webhookUrl: string): string[] {
  const lines = ['First run: created company "Default", service user and the published example flow "hello-webhook".'];
  if (!files.shown) {
    lines.push(
      'Credentials are not printed here, as this output is not a terminal (it may be kept in a log). They are in',
      `  ${files.credentials}   (mode 0600: service user, web service access key, flow secret)`,
      'Store them elsewhere, then delete the first-run-* files.',
    );
  } else {
    lines.push(
      'These credentials are shown ONCE — store them now:',
      `  service user             ${seed.userName}`,
      `  web service access key   ${seed.accessKey}`,
      `  flow secret (${seed.activity})  ${seed.secret}`,
      `They are also in ${files.credentials} (mode 0600), which the handbook's commands read; delete the first-run-* files once stored.`,
    );
  }
  // The secret stays off the command line: the body comes from the request file.
  const data = `@'${files.request}'`;
  lines.push(
    '',
    `Try it (the access key is read from ${files.netrc}):`,
    `  curl -sS --netrc-file '${files.netrc}' -H 'Content-Type: application/json' \\`,
    `    -d ${data} \\`,
    `    '${webhookUrl}'`,
  );
  return lines;
}

/**
 * `flowhook start --json`: the same facts as one JSON line on stdout, for scripts that start
 * flowhook and need its URLs. On the first run `firstRun` names the company, service user and
 * activity, and the files of first-run-credentials.ts; the access key and secret themselves only
 * when stdout is a terminal (a script's stdout tends to end up in a log).
 */
export function bannerJson(info: BannerInfo): string {
  const { seed, firstRunFiles: files } = info;
  return `${JSON.stringify({
    status: 'running',
    webhookUrl: info.webhookUrl,
    metadataUrl: info.metadataUrl,
    facadeHost: info.facadeHost,
    engineUrl: info.engineUrl,
    temporalAddress: info.temporalAddress,
    temporalUiUrl: info.temporalUiUrl ?? null,
    codecUrl: info.codecUrl ?? null,
    consoleUrl: info.consoleUrl ?? null,
    codecLoginUrl: info.codecUrl ? `${info.codecUrl}/login` : null,
    metricsUrls: info.metricsUrls ?? null,
    dataDir: info.dataDir,
    firstRun:
      seed && files
        ? {
            company: seed.company,
            serviceUser: seed.userName,
            activity: seed.activity,
            credentialsFile: files.credentials,
            requestFile: files.request,
            ...(files.shown && { accessKey: seed.accessKey, secret: seed.secret }),
            netrcFile: files.netrc,
          }
        : null,
    replaceLostCredentials: seed
      ? null
      : {
          flowSecret: `flowhook secret rotate Default ${EXAMPLE_ACTIVITY}`,
          accessKey: `flowhook user rotate-key ${SEED_USER}`,
        },
  })}\n`;
}
