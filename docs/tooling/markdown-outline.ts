// What a Markdown page offers and points at, read the way a code host renders
// it: the anchors of its headings (GitHub's rule: the heading's text, lower
// case, punctuation dropped, spaces as hyphens, a repeated anchor numbered
// -1, -2, …), the relative links of its prose, and the code spans that name a
// file of the repository. Fenced code blocks hold neither headings nor links.

export interface PageLink {
  line: number;
  target: string;
}

export interface PageOutline {
  anchors: Set<string>;
  links: PageLink[];
  /** Code spans that look like a path in the repository (`engine/errors.ts`), by line. */
  paths: PageLink[];
}

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/;
const HTML_ANCHOR = /<a\s+(?:id|name)="([^"]+)"/g;
const CODE_SPAN = /(`+)(.+?)\1/g;
/** A code span naming a file or folder of the repository: one of its top folders, then path characters only. */
const REPOSITORY_PATH = /^(?:bin|common|docs|engine|examples|facade|flow|proto|test|workflows)\/[\w./-]*$/;

export function outline(page: string): PageOutline {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const links: PageLink[] = [];
  const paths: PageLink[] = [];
  let fence: string | undefined;
  page.split('\n').forEach((text, index) => {
    const line = index + 1;
    const opening = FENCE.exec(text);
    if (fence !== undefined) {
      if (opening && opening[1] === fence) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1];
      return;
    }
    for (const [, id] of text.matchAll(HTML_ANCHOR)) anchors.add(id!);
    const heading = HEADING.exec(text);
    if (heading) {
      const base = slug(heading[2]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const [, , content] of text.matchAll(CODE_SPAN)) {
      const span = content!.trim();
      if (REPOSITORY_PATH.test(span)) paths.push({ line, target: span });
    }
    const prose = text.replace(CODE_SPAN, '');
    for (const [, target] of prose.matchAll(INLINE_LINK)) links.push({ line, target: target! });
    const definition = REFERENCE_DEFINITION.exec(prose);
    if (definition) links.push({ line, target: definition[1]! });
  });
  return { anchors, links, paths };
}

/** GitHub's anchor for a heading's Markdown text. */
export function slug(heading: string): string {
  return plainText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** The text a heading renders as: code spans, links and emphasis reduced to their words, HTML dropped. */
function plainText(markdown: string): string {
  return markdown
    .replace(CODE_SPAN, (_, _fence: string, content: string) => content.trim())
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*|~~)/g, '');
}
