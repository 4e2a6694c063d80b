// Where the first run's credentials go. A person at a terminal reads them on
// screen; anything else (systemd, docker, a script piping stdout) would keep
// them in a log for as long as the log lives, so then they are written to files
// only the owner can read (0600, in the 0700 data directory) and the banner
// names the files instead. The suggested curl takes the access key from a
// netrc file in both cases, so the key never appears in the process list.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedResult } from './seed.ts';

export const NETRC_FILE = 'first-run.netrc';
export const CREDENTIALS_FILE = 'first-run-credentials.json';
export const REQUEST_FILE = 'first-run-request.json';

export interface FirstRunFiles {
  /** `machine <host> login <service user> password <access key>`, for `curl --netrc-file`. */
  netrc: string;
  /** Set when the credentials were not shown: the JSON with company, serviceUser, accessKey, activity and secret. */
  credentials?: string;
  /** Set when the credentials were not shown: the example call's body (it holds the flow secret), for `curl -d @file`. */
  request?: string;
}

/** The example call's body: the published example flow, its secret and a payload. */
export function exampleRequestBody(seed: SeedResult): string {
  return JSON.stringify({ activity: seed.activity, secret: seed.secret, payload: { name: 'Ada' } });
}

/**
 * Writes the first run's files into dataDir. `shown`: the credentials go to a terminal, so only
 * the netrc file (the curl's key) is written; otherwise the credentials and the example body too.
 */
export function writeFirstRunFiles(dataDir: string, seed: SeedResult, webhookUrl: string, shown: boolean): FirstRunFiles {
  const netrc = writePrivate(dataDir, NETRC_FILE, `machine ${new URL(webhookUrl).hostname} login ${seed.userName} password ${seed.accessKey}\n`);
  if (shown) return { netrc };
  const { company, userName: serviceUser, accessKey, activity, secret } = seed;
  return {
    netrc,
    credentials: writePrivate(dataDir, CREDENTIALS_FILE, `${JSON.stringify({ company, serviceUser, accessKey, activity, secret }, null, 2)}\n`),
    request: writePrivate(dataDir, REQUEST_FILE, exampleRequestBody(seed)),
  };
}

/**
 * A file only its owner can read. A leftover from an earlier installation in the same directory is
 * removed first, so the new content never lands in a file created with wider permissions.
 */
function writePrivate(dataDir: string, name: string, content: string): string {
  const path = join(dataDir, name);
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
  return path;
}
