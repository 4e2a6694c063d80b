// Where the first run's credentials go. A person at a terminal reads them on
// screen; anything else (systemd, docker, a script piping stdout) would keep
// them in a log for as long as the log lives, so then they are written to files
// only the owner can read (0600, in the 0700 data directory) and the banner
// names the files instead. The files are written on a terminal too (the netrc
// file holds the access key either way): the handbook's commands read the
// key and the secret from them, wherever the first run was started. The
// suggested curl takes the access key from the netrc file, so the key never
// appears in the process list.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedResult } from './seed.ts';

/** The files, by what they hold, with their names in the data directory. */
const FILE_NAMES = {
  /** `machine <host> login <service user> password <access key>`, for `curl --netrc-file`. */
  netrc: 'first-run.netrc',
  /** The JSON with company, serviceUser, accessKey, activity and secret. */
  credentials: 'first-run-credentials.json',
  /** The example call's body (it holds the flow secret), for `curl -d @file`. */
  request: 'first-run-request.json',
} as const;

/** Where each file was written, and whether the credentials went to a terminal as well. */
export type FirstRunFiles = Record<keyof typeof FILE_NAMES, string> & { shown: boolean };

/** The example call's body: the published example flow, its secret and a payload. */
function exampleRequestBody(seed: SeedResult): string {
  return JSON.stringify({ activity: seed.activity, secret: seed.secret, payload: { name: 'Ada' } });
}

/** Writes the first run's files into dataDir. `shown`: the credentials also go to a terminal. */
export function writeFirstRunFiles(
  dataDir: string,
  seed: SeedResult,
  webhookUrl: string,
  shown: boolean,
): FirstRunFiles {
  const { company, userName: serviceUser, accessKey, activity, secret } = seed;
  const netrc = `machine ${new URL(webhookUrl).hostname} login ${seed.userName} password ${seed.accessKey}\n`;
  const credentials = `${JSON.stringify({ company, serviceUser, accessKey, activity, secret }, null, 2)}\n`;
  return {
    netrc: writePrivate(dataDir, FILE_NAMES.netrc, netrc),
    credentials: writePrivate(dataDir, FILE_NAMES.credentials, credentials),
    request: writePrivate(dataDir, FILE_NAMES.request, exampleRequestBody(seed)),
    shown,
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
