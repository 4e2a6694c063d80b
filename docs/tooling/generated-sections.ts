// The parts of a handbook page that are not written by hand: a reference
// rendered from the code, or an example copied from its file in examples/.
// Each sits between two HTML comments (invisible on a code host), so the
// prose around it stays ordinary Markdown that people edit:
//
//   <!-- BEGIN GENERATED: cli (npm run docs writes this part; do not edit) -->
//   …
//   <!-- END GENERATED: cli -->
//
//   <!-- BEGIN EXAMPLE: examples/flows/hello-webhook.flow.yaml (npm run docs copies the file; edit the file) -->
//   ```yaml … ```
//   <!-- END EXAMPLE: examples/flows/hello-webhook.flow.yaml -->
//
// `npm run docs` rewrites every such part; a unit test fails while any page
// differs from what it would write. Markers inside a fenced code block are
// text about markers, not markers.

export type SectionKind = 'GENERATED' | 'EXAMPLE';

export interface Section {
  kind: SectionKind;
  /** A reference's id (references.ts), or an example's path from the repository root. */
  id: string;
}

const NOTES: Readonly<Record<SectionKind, string>> = {
  GENERATED: 'npm run docs writes this part; do not edit',
  EXAMPLE: 'npm run docs copies the file; edit the file',
};

const SECTION = /<!-- BEGIN (GENERATED|EXAMPLE): (\S+)[^\n]*-->\n[\s\S]*?<!-- END \1: \2 -->/g;

/** The generated parts of a page, in order. */
export function sectionsOf(page: string): Section[] {
  return markers(page).map(([, kind, id]) => ({ kind: kind as SectionKind, id: id! }));
}

/** The matches of SECTION outside fenced code blocks. */
function markers(page: string): RegExpExecArray[] {
  const fences: [number, number][] = [];
  let open: number | undefined;
  for (const line of page.matchAll(/^[ \t]*(?:```|~~~).*$/gm)) {
    if (open === undefined) open = line.index;
    else {
      fences.push([open, line.index + line[0].length]);
      open = undefined;
    }
  }
  return [...page.matchAll(SECTION)].filter(
    (match) => !fences.some(([from, to]) => match.index >= from && match.index < to),
  );
}

/** The page with every generated part replaced by what `render` makes of it now. */
export async function regenerate(page: string, render: (section: Section) => Promise<string>): Promise<string> {
  const parts: string[] = [];
  let from = 0;
  for (const match of markers(page)) {
    const section = { kind: match[1] as SectionKind, id: match[2]! };
    const body = (await render(section)).trim();
    parts.push(
      page.slice(from, match.index),
      `<!-- BEGIN ${section.kind}: ${section.id} (${NOTES[section.kind]}) -->\n\n${body}\n\n<!-- END ${section.kind}: ${section.id} -->`,
    );
    from = match.index + match[0].length;
  }
  parts.push(page.slice(from));
  return parts.join('');
}

/** A page's text with the generated parts left out: what people wrote. */
export function handWritten(page: string): string {
  let text = page;
  for (const match of markers(page).reverse())
    text = text.slice(0, match.index) + text.slice(match.index + match[0].length);
  return text;
}
