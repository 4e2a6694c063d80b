// Field paths in a flow file's own spelling (`steps[2].if.then[0].respond.body`):
// how publish problems name the field they are about. Written by formatPath,
// read back by parseFieldPathText, so a problem can be placed at its field —
// the CLI puts `file:line:col` in front, the console marks the field or the
// YAML line. Pure.
import { FlowSchema } from '../proto/gen/flowhook/flow/v1/flow_pb.js';

/** One segment of a path: a member name or an array index (SmartField paths have the same, smart-field-path.ts). */
export type PathSegment = string | number;

/** `steps[2].respond.statusCode` */
export function formatPath(path: readonly PathSegment[]): string {
  return path
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`))
    .join('');
}

// A field name, then `.key` (map keys — variable and header names — may hold
// `-` or start with a digit) or `[index]`, as formatPath writes them.
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

/** Problems name fields of the Flow message; a line starting with anything else (`Note: …`) is not one. */
const TOP_LEVEL_FIELDS = new Set(FlowSchema.fields.map((field) => field.jsonName));

/** A problem's text split at its leading field path (`trigger.webhook.activity: required`); no path when it starts with none. */
export function splitProblem(text: string): { path?: PathSegment[]; pathText: string; message: string } {
  const end = text.indexOf(': ');
  const path = end < 0 ? undefined : parseFieldPathText(text.slice(0, end));
  if (!path || !TOP_LEVEL_FIELDS.has(String(path[0]))) return { pathText: '', message: text };
  return { path, pathText: text.slice(0, end), message: text.slice(end + 2) };
}
