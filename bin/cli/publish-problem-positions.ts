// The engine reports publish problems by field path (`- steps[2].sleep.duration: …`);
// a flow author wants the line. With the file at hand, each problem line gets
// `file:line:col` in front, the way editors and terminals make clickable.
import type { PathSegment } from './flow-schema-problem.ts';

type PositionOf = (path: PathSegment[], atKey?: boolean) => { line: number; col: number } | undefined;

const PROBLEM_LINE = /^(- )?((?:[A-Za-z_$][\w$-]*|\[\d+\])(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*): /;

/** The message with every `- <path>: …` (or `<path>: …`) line that can be placed prefixed by `file:line:col: `. */
export function placePublishProblems(message: string, file: string, positionOf: PositionOf): string {
  return message
    .split('\n')
    .map((line) => {
      const match = PROBLEM_LINE.exec(line);
      const segments = match ? parseFieldPathText(match[2]!) : undefined;
      const position = segments ? deepestPosition(segments, positionOf) : undefined;
      if (!match || !position) return line;
      const bullet = match[1] ?? '';
      return `${bullet}${file}:${position.line}:${position.col}: ${line.slice(bullet.length)}`;
    })
    .join('\n');
}

/** `steps[2].if.then[0].respond.body` → ['steps', 2, 'if', 'then', 0, 'respond', 'body']. */
export function parseFieldPathText(text: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  for (const [, name, index] of text.matchAll(/([A-Za-z_$][\w$-]*)|\[(\d+)\]/g)) segments.push(name ?? Number(index));
  return segments.length > 0 ? segments : undefined;
}

/**
 * The position of the path, or of its longest prefix that exists in the file
 * (a problem may name a field the file leaves out, such as a missing
 * `statusCode`: then the step it belongs to is the place).
 */
function deepestPosition(segments: PathSegment[], positionOf: PositionOf): { line: number; col: number } | undefined {
  for (let length = segments.length; length > 0; length--) {
    const position = positionOf(segments.slice(0, length));
    if (position) return position;
  }
  return undefined;
}
