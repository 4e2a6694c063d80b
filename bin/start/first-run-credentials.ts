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

export const NETRC_FILE = 'first-run.netrc';
export const CREDENTIALS_FILE = 'first-run-credentials.json';
export const REQUEST_FILE = 'first-run-request.json';

export interface FirstRunFiles {
  /** `machine <host> login <service user> password <access key>`, for `curl --netrc-file`. */
  netrc: string;
  /** The JSON with company, serviceUser, accessKey, activity and secret. */
  credentials: string;
  /** The example call's body (it holds the flow secret), for `curl -d @file`. */
  request: string;
  /** The credentials went to a terminal as well. */
  shown: boolean;
}

/** The example call's body: the published example flow, its secret and a payload. */
function exampleRequestBody(seed: SeedResult): string {
  return JSON.stringify({ activity: seed.activity, secret: seed.secret, payload: { name: 'Ada' } });
}

/** Writes the first run's files into dataDir. `shown`: the credentials also go to a terminal. */
export function writeFirstRunFiles(dataDir: string, seed: SeedResult, webhookUrl: string, shown: boolean): FirstRunFiles {
  const netrc = writePrivate(dataDir, NETRC_FILE, `machine ${new URL(webhookUrl).hostname} login ${seed.userName} password ${seed.accessKey}\n`);
  const { company, userName: serviceUser, accessKey, activity, secret } = seed;
  return {
    netrc,
    credentials: writePrivate(dataDir, CREDENTIALS_FILE, `${JSON.stringify({ company, serviceUser, accessKey, activity, secret }, null, 2)}\n`),
    request: writePrivate(dataDir, REQUEST_FILE, exampleRequestBody(seed)),
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
