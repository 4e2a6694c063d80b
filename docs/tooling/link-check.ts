// Every relative link of the handbook leads somewhere: the file or folder
// exists, an anchor names a heading (or an explicit anchor) of the page it
// points into, and a code span that names a repository file names one that
// exists. Links to other sites are not followed (the tests run offline).
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { outline, type PageOutline } from './markdown-outline.ts';
import { REPOSITORY_ROOT, readPage, type Page } from './handbook-pages.ts';

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** One line per broken link, as `file:line: what is wrong`. */
export function brokenLinks(pages: readonly Page[]): string[] {
  const outlines = new Map<string, PageOutline>(pages.map((page) => [page.path, outline(page.text)]));
  const outlineOf = (path: string): PageOutline => {
    let found = outlines.get(path);
    if (!found) {
      found = outline(readPage(path).text);
      outlines.set(path, found);
    }
    return found;
  };
  const problems: string[] = [];
  for (const page of pages) {
    const { links, paths } = outlineOf(page.path);
    for (const { line, target } of links) {
      if (EXTERNAL.test(target)) continue;
      const problem = linkProblem(page.path, target, outlines, outlineOf);
      if (problem) problems.push(`${page.path}:${line}: ${target}: ${problem}`);
    }
    for (const { line, target } of paths) {
      if (!existsSync(join(REPOSITORY_ROOT, target)))
        problems.push(`${page.path}:${line}: \`${target}\` names no file of the repository`);
    }
  }
  return problems;
}

/** `pages`: the pages being checked, which count as existing whether or not they are on disk yet. */
function linkProblem(
  from: string,
  target: string,
  pages: ReadonlyMap<string, PageOutline>,
  outlineOf: (path: string) => PageOutline,
): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = decodeURI(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? from : normalize(join(dirname(from), pathPart)).replaceAll('\\', '/');
  if (resolved.startsWith('..') || relative(REPOSITORY_ROOT, join(REPOSITORY_ROOT, resolved)).startsWith('..'))
    return 'leads outside the repository';
  const absolute = join(REPOSITORY_ROOT, resolved);
  const isPage = pages.has(resolved);
  if (!isPage && !existsSync(absolute)) return `no such file or folder (${resolved})`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || (!isPage && statSync(absolute).isDirectory()))
    return 'an anchor into something that is not a Markdown page';
  if (!outlineOf(resolved).anchors.has(anchor)) return `no heading with the anchor #${anchor} in ${resolved}`;
  return undefined;
}
