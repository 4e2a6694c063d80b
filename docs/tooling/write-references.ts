// `npm run docs`: rewrites every generated part of the handbook (the
// references rendered from the code, the examples copied from examples/).
// `--check` writes nothing and exits 1 naming the pages that are stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { regenerate } from './generated-sections.ts';
import { handbookPaths, readPage, REPOSITORY_ROOT } from './handbook-pages.ts';
import { renderSection } from './references.ts';

export interface PageState {
  path: string;
  written: string;
  expected: string;
}

/** Every handbook page as it is and as `npm run docs` would write it. */
export async function handbookState(): Promise<PageState[]> {
  return Promise.all(
    handbookPaths().map(async (path) => {
      const { text } = readPage(path);
      return { path, written: text, expected: await regenerate(text, renderSection) };
    }),
  );
}

if (import.meta.main) {
  const stale = (await handbookState()).filter((page) => page.written !== page.expected);
  if (process.argv.includes('--check')) {
    for (const page of stale) process.stderr.write(`${page.path}: stale; run "npm run docs"\n`);
    process.exitCode = stale.length > 0 ? 1 : 0;
  } else {
    for (const page of stale) {
      writeFileSync(join(REPOSITORY_ROOT, page.path), page.expected);
      process.stdout.write(`wrote ${page.path}\n`);
    }
  }
}
