// The engine reports publish problems by field path
// (`Flow "x" v1 cannot be published:\n- steps[2].sleep.duration: …`); a flow
// author wants the line. With the file at hand, each problem line gets
// `file:line:col: ` in front, the way editors and terminals make clickable.
// Pure: the file is read (and its positions found) by flow-file.ts.
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { PositionOf } from './flow-file.ts';
import type { PathSegment } from './flow-schema-problem.ts';

/** Problems name fields of the Flow message; a line starting with anything else (`Note: …`) is not one. */
const TOP_LEVEL_FIELDS = new Set(FlowSchema.fields.map((field) => field.jsonName));

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
      const path = leadingFieldPath(rest);
      const position = path ? deepestPosition(path, positionOf) : undefined;
      return position ? `${bullet}${file}:${position.line}:${position.col}: ${rest}` : line;
    })
    .join('\n');
}

/** The field path a problem line starts with (`steps[1].set.variables.total: …`), or undefined when it starts with none. */
function leadingFieldPath(text: string): PathSegment[] | undefined {
  const end = text.indexOf(': ');
  if (end < 0) return undefined;
  const path = parseFieldPathText(text.slice(0, end));
  return path && TOP_LEVEL_FIELDS.has(String(path[0])) ? path : undefined;
}

// A field name, then `.key` (map keys — variable and header names — may hold
// `-` or start with a digit) or `[index]`, as formatPath in flow-schema-problem.ts writes them.
const FIRST_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const NEXT_SEGMENT = /^(?:\.([^.[\]\s:]+)|\[(\d+)\])/;

/** The inverse of formatPath: `steps[2].if.then[0].respond.body` → ['steps', 2, 'if', 'then', 0, 'respond', 'body']; undefined when it is not a path. */
export function parseFieldPathText(text: string): PathSegment[] | undefined {
  const first = FIRST_NAME.exec(text);
  if (!first) return undefined;
  const segments: PathSegment[] = [first[0]];
  let rest = text.slice(first[0].length);
  while (rest !== '') {
    const next = NEXT_SEGMENT.exec(rest);
    if (!next) return undefined;
    segments.push(next[1] ?? Number(next[2]));
    rest = rest.slice(next[0].length);
  }
  return segments;
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
