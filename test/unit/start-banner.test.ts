// What `flowhook start` prints about the console and the codec server: their
// URLs and where the operator signs in — in the banner and its JSON line;
// and where the first run's credentials go (a terminal, or 0600 files).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { banner, bannerJson, type BannerInfo } from '../../bin/start/banner.ts';
import { writeFirstRunFiles, type FirstRunFiles } from '../../bin/start/first-run-credentials.ts';
import type { SeedResult } from '../../bin/start/seed.ts';

const info: BannerInfo = {
  webhookUrl: 'http://localhost:7048/BC/ODataV4/flowWebhook_Invoke?company=Default',
  metadataUrl: 'http://localhost:7048/BC/ODataV4/$metadata',
  facadeHost: '127.0.0.1',
  engineUrl: 'http://127.0.0.1:7049',
  temporalAddress: '127.0.0.1:7233',
  temporalUiUrl: 'http://127.0.0.1:8233',
  codecUrl: 'http://127.0.0.1:8234',
  consoleUrl: 'http://127.0.0.1:7054',
  dataDir: '/srv/.flowhook',
};

test('the banner has a console line with its URL and the token to sign in with; the JSON line has consoleUrl', (t) => {
  t.regex(
    banner(info),
    /^ {2}console\s+http:\/\/127\.0\.0\.1:7054 {3}\(sign in with the admin token in \/srv\/\.flowhook\/admin-token\)$/m,
  );
  t.like(JSON.parse(bannerJson(info)), { consoleUrl: 'http://127.0.0.1:7054' });
  const without = { ...info, consoleUrl: undefined };
  t.notRegex(banner(without), /console/);
  t.like(JSON.parse(bannerJson(without)), { consoleUrl: null });
});

test('the banner names the codec server, its sign-in page and the token to paste', (t) => {
  t.regex(
    banner(info),
    /codec server\s+http:\/\/127\.0\.0\.1:8234 .*sign in at http:\/\/127\.0\.0\.1:8234\/login with the token in \/srv\/\.flowhook\/admin-token/,
  );
  t.like(JSON.parse(bannerJson(info)), {
    codecUrl: 'http://127.0.0.1:8234',
    codecLoginUrl: 'http://127.0.0.1:8234/login',
  });
});

test('without a codec server (another Temporal, or FLOWHOOK_CODEC_PORT=off) the banner says nothing about one', (t) => {
  const without = { ...info, codecUrl: undefined };
  t.notRegex(banner(without), /codec/);
  t.like(JSON.parse(bannerJson(without)), { codecUrl: null, codecLoginUrl: null });
});

// ── the first run's credentials: on a terminal, or in 0600 files named by the banner ──

const seed: SeedResult = {
  company: 'Default',
  userName: 'flowhook-service',
  accessKey: 'K'.repeat(44),
  activity: 'examples.hello',
  secret: 'S'.repeat(32),
};

const dataDirs: string[] = [];
test.after.always(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-banner-'));
  dataDirs.push(dir);
  return dir;
}

function firstRun(shown: boolean): {
  dataDir: string;
  files: FirstRunFiles;
  text: string;
  json: Record<string, unknown>;
} {
  const dataDir = privateDir();
  const files = writeFirstRunFiles(dataDir, seed, info.webhookUrl, shown);
  const withSeed = { ...info, dataDir, seed, firstRunFiles: files };
  return { dataDir, files, text: banner(withSeed), json: JSON.parse(bannerJson(withSeed)) as Record<string, unknown> };
}

test('on a terminal the credentials are shown, kept in 0600 files too, and the curl reads key and body from them', (t) => {
  const { files, text, json } = firstRun(true);
  t.regex(text, new RegExp(`web service access key\\s+${seed.accessKey}`));
  t.regex(text, new RegExp(`flow secret \\(examples\\.hello\\)\\s+${seed.secret}`));
  const curl = text.slice(text.indexOf('curl '));
  t.notRegex(curl, new RegExp(seed.accessKey), 'the key is not on the command line (the process list)');
  t.regex(curl, new RegExp(`--netrc-file '${files.netrc}'`));
  t.is(readFileSync(files.netrc, 'utf8'), `machine localhost login flowhook-service password ${seed.accessKey}\n`);
  t.is(statSync(files.netrc).mode & 0o777, 0o600);
  // The files are there for the handbook's commands, private as the netrc file; the banner says so.
  t.is(files.credentials, join(files.netrc, '..', 'first-run-credentials.json'));
  for (const file of [files.credentials, files.request]) t.is(statSync(file).mode & 0o777, 0o600, file);
  t.true(text.includes(`They are also in ${files.credentials} (mode 0600)`));
  t.regex(curl, new RegExp(`-d @'${files.request}'`), 'the secret is not on the command line either');
  t.like(json.firstRun, {
    serviceUser: 'flowhook-service',
    accessKey: seed.accessKey,
    secret: seed.secret,
    netrcFile: files.netrc,
    credentialsFile: files.credentials,
  });
});

test('when stdout is not a terminal no key or secret is printed: they are in 0600 files the banner names', (t) => {
  const { dataDir, files, text, json } = firstRun(false);
  for (const printed of [text, JSON.stringify(json)]) {
    t.false(printed.includes(seed.accessKey), 'no access key in the output');
    t.false(printed.includes(seed.secret), 'no flow secret in the output');
  }
  t.is(files.credentials, join(dataDir, 'first-run-credentials.json'));
  t.true(text.includes(files.credentials!));
  t.regex(text, new RegExp(`-d @'${files.request}'`));
  t.deepEqual(JSON.parse(readFileSync(files.credentials!, 'utf8')), {
    company: 'Default',
    serviceUser: 'flowhook-service',
    accessKey: seed.accessKey,
    activity: 'examples.hello',
    secret: seed.secret,
  });
  t.deepEqual(JSON.parse(readFileSync(files.request!, 'utf8')), {
    activity: 'examples.hello',
    secret: seed.secret,
    payload: { name: 'Ada' },
  });
  for (const file of [files.netrc, files.credentials!, files.request!]) t.is(statSync(file).mode & 0o777, 0o600, file);
  t.deepEqual(json.firstRun, {
    company: 'Default',
    serviceUser: 'flowhook-service',
    activity: 'examples.hello',
    credentialsFile: files.credentials,
    requestFile: files.request,
    netrcFile: files.netrc,
  });
});

test('a leftover file with wider permissions is replaced, not reused', (t) => {
  const dataDir = privateDir();
  writeFileSync(join(dataDir, 'first-run-credentials.json'), 'old', { mode: 0o644 });
  const files = writeFirstRunFiles(dataDir, seed, info.webhookUrl, false);
  t.is(statSync(files.credentials!).mode & 0o777, 0o600);
});
