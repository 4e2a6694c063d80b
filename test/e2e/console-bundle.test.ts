// The console's first load stays small (issue 28: under 500 KB of compressed
// JavaScript): what index.html loads at once — its module script and the
// chunks it preloads — gzipped; the code editor (CodeMirror) and the other
// tabs load only when opened. Builds the pages first when they are stale.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import { ensureConsoleBuilt } from '../support/console-browser.ts';

const DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));
const BUDGET_BYTES = 500 * 1024;

test('the first load is under 500 KB of compressed JavaScript, without the code editor', async (t) => {
  await ensureConsoleBuilt();
  const index = readFileSync(join(DIST, 'index.html'), 'utf8');
  const first = [
    ...index.matchAll(/<(?:script type="module"[^>]* src|link rel="modulepreload"[^>]* href)="\/(assets\/[^"]+\.js)"/g),
  ].map((match) => match[1]!);
  t.true(first.length > 0, index);
  let compressed = 0;
  for (const file of first) {
    const code = readFileSync(join(DIST, file));
    compressed += gzipSync(code, { level: 9 }).length;
    t.false(code.includes('cm-editor'), `${file}: CodeMirror is not in the first load`);
  }
  t.log(`first load: ${first.length} files, ${(compressed / 1024).toFixed(1)} KB gzipped`);
  t.true(compressed < BUDGET_BYTES, `${compressed} bytes`);
});
