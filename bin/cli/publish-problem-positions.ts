// The engine reports publish problems by field path
// (`Flow "x" v1 cannot be published:\n- steps[2].sleep.duration: …`); a flow
// author wants the line. With the file at hand, each problem line gets
// `file:line:col: ` in front, the way editors and terminals make clickable.
// Pure: the file is read (and its positions found) by flow-file.ts.
import { splitProblem, type PathSegment } from '../../flow/field-path.ts';
import type { PositionOf } from './flow-file.ts';

/**
 * The message with every problem line that can be placed prefixed by
 * `file:line:col: `: `- <path>: …` lines, and a first line that is itself
 * `<path>: …` (a single problem). Other lines — the heading, and the
 * continuation lines of a problem that quotes a multi-line formula — stay as
 * they are.
 */
export function placePublishProblems(message: string, file: string, positionOf: PositionOf): string {
  return message
    .split('\n')
    .map((line, index) => {
      const bullet = line.startsWith('- ') ? '- ' : index === 0 ? '' : undefined;
      if (bullet === undefined) return line;
      const rest = line.slice(bullet.length);
      const path = splitProblem(rest).path;
      const position = path ? deepestPosition(path, positionOf) : undefined;
      return position ? `${bullet}${file}:${position.line}:${position.col}: ${rest}` : line;
    })
    .join('\n');
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
