// What `flowhook start` prints once everything runs.
import type { SeedResult } from './seed.ts';

export interface BannerInfo {
  webhookUrl: string;
  metadataUrl: string;
  engineUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  dataDir: string;
  seed?: SeedResult;
}

export function banner(info: BannerInfo): string {
  const lines = [
    '',
    'flowhook is running',
    `  webhook endpoint  POST ${info.webhookUrl}`,
    `  OData metadata    GET  ${info.metadataUrl}`,
    `  engine (gRPC)     ${info.engineUrl}`,
    `  Temporal          ${info.temporalAddress}${info.temporalUiUrl ? `   (Web UI: ${info.temporalUiUrl})` : ''}`,
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
    lines.push('', 'Existing data: credentials were shown on the first run. New ones: `flowhook secret rotate Default examples.hello`, `flowhook user create <name> --company Default`.');
  }
  lines.push('', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}
