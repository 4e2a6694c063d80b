// The data directory's files are re-tightened at every start, on a real
// directory: whatever a restore, a copy or an editor loosened is closed again,
// and the warning names exactly the files that were open.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { keepDataDirPrivate } from '../../bin/data-dir-permissions.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-data-dir-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('loose files and directory are tightened at every start, and the warning names each of them', (t) => {
  const dataDir = join(tempDir(t), 'data');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  const files = {
    'admin-token': 0o644,
    'payload-key': 0o600,
    'secrets-key': 0o640,
    'temporal.db': 0o664,
    'postgres-password': 0o600,
  };
  for (const [name, mode] of Object.entries(files)) {
    writeFileSync(join(dataDir, name), 'x\n');
    chmodSync(join(dataDir, name), mode);
  }
  mkdirSync(join(dataDir, 'bin'), { mode: 0o755 });
  writeFileSync(join(dataDir, 'bin', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
  symlinkSync('bin/tool', join(dataDir, 'tool-link'));

  const warnings: string[] = [];
  keepDataDirPrivate(dataDir, (message) => warnings.push(message));

  t.is(modeOf(dataDir), 0o700);
  for (const name of Object.keys(files)) t.is(modeOf(join(dataDir, name)), 0o600, name);
  t.is(modeOf(join(dataDir, 'bin', 'tool')), 0o755, 'programs in subdirectories stay runnable');
  t.is(warnings.length, 1);
  const [warning] = warnings;
  for (const name of ['admin-token', 'secrets-key', 'temporal.db'])
    t.true(warning.includes(join(dataDir, name)), `names ${name}`);
  t.true(warning.includes(`${dataDir} (was 0755, now 0700)`));
  t.false(warning.includes('payload-key'), 'a file that was already private is not named');
  t.false(warning.includes('postgres-password'));

  // The next start finds nothing to say; a file loosened since is caught again.
  warnings.length = 0;
  keepDataDirPrivate(dataDir, (message) => warnings.push(message));
  t.deepEqual(warnings, []);
  chmodSync(join(dataDir, 'payload-key'), 0o604);
  keepDataDirPrivate(dataDir, (message) => warnings.push(message));
  t.is(modeOf(join(dataDir, 'payload-key')), 0o600);
  t.is(warnings.length, 1);
  t.true(warnings[0].includes(`${join(dataDir, 'payload-key')} (was 0604, now 0600)`));
});

test('a missing data directory is created private; group search alone (for the embedded PostgreSQL under root) is no warning', (t) => {
  const dataDir = join(tempDir(t), 'new', 'data');
  const warnings: string[] = [];
  keepDataDirPrivate(dataDir, (message) => warnings.push(message));
  t.is(modeOf(dataDir), 0o700);
  chmodSync(dataDir, 0o710);
  keepDataDirPrivate(dataDir, (message) => warnings.push(message));
  t.is(modeOf(dataDir), 0o700);
  t.deepEqual(warnings, []);
});
