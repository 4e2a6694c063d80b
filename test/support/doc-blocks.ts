// The shell blocks of the handbook pages a newcomer follows (README.md,
// docs/tutorials/, docs/how-to/), as the docs test runs them. A block runs
// unless the line before it says why it cannot run here:
//
//   <!-- docs-test: skip — needs a Stripe account -->
//
// A block that only starts flowhook (`npm start`, with settings in front of it)
// is the docs test's own start: those settings are what the page's flowhook
// is started with. A block marked `<!-- docs-test: background -->` (a server
// the page runs next to flowhook) runs in the background until the page ends.
// Pure.

export interface DocBlock {
  file: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  text: string;
  /** Why it is not run; undefined when it runs. */
  skip?: string;
  background: boolean;
}

export interface DocPage {
  file: string;
  blocks: DocBlock[];
  /** Settings the page starts flowhook with (`FLOWHOOK_EGRESS_ALLOW=… npm start`). */
  startEnv: Record<string, string>;
}

const SHELL_FENCE = /^```(sh|bash|shell)\s*$/;
const MARKER = /^<!--\s*docs-test:\s*(skip|background)\b\s*(?:[—:-]\s*)?(.*?)\s*-->\s*$/;
const START = /^((?:[A-Z][A-Z0-9_]*=\S+\s+)*)npm start\s*$/;

export function docPage(file: string, markdown: string): DocPage {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  const startEnv: Record<string, string> = {};
  for (let index = 0; index < lines.length; index++) {
    if (!SHELL_FENCE.test(lines[index]!)) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${index + 1}: a shell block that never ends`);
    const text = lines.slice(index + 1, end).join('\n');
    const marker = MARKER.exec(previousNonBlank(lines, index) ?? '');
    if (marker?.[1] === 'skip' && marker[2] === '')
      throw new Error(`${file}:${index + 1}: a docs-test skip must say why`);
    const start = START.exec(text.trim());
    if (start) for (const [, name, value] of start[1]!.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)) startEnv[name!] = value!;
    blocks.push({
      file,
      line: index + 1,
      text,
      skip: start
        ? 'the docs test starts flowhook itself, with these settings'
        : marker?.[1] === 'skip'
          ? marker[2]
          : undefined,
      background: marker?.[1] === 'background',
    });
    index = end;
  }
  return { file, blocks, startEnv };
}

function previousNonBlank(lines: readonly string[], index: number): string | undefined {
  for (let at = index - 1; at >= 0; at--) if (lines[at]!.trim() !== '') return lines[at];
  return undefined;
}
