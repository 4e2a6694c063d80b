// The handbook's pages: the front page and every Markdown file under docs/.
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Page {
  /** Relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

/** README.md and docs/**\/*.md, sorted. */
export function handbookPaths(): string[] {
  return ['README.md', ...globSync('docs/**/*.md', { cwd: REPOSITORY_ROOT }).sort()];
}

export function readPage(path: string): Page {
  return { path, text: readFileSync(join(REPOSITORY_ROOT, path), 'utf8') };
}
