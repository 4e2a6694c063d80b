// Reads a flow file (flows as code): YAML or JSON read
// with the protobuf JSON mapping of flowhook.flow.v1.Flow. Every failure is a
// FlowFileError whose message names the file, the place and the problem, ready
// to print as is — a flow author should never see a stack trace.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fromJson } from '@bufbuild/protobuf';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { FlowSchema, type Flow } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { findSchemaProblem, findSecret, formatPath, type PathSegment } from './flow-schema-problem.ts';

export class FlowFileError extends Error {
  readonly file: string;
  /** 1-based, when the problem could be placed in the file. */
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(file: string, problem: string, position?: { line: number; col: number }) {
    super(`${file}${position ? `:${position.line}:${position.col}` : ''}: ${problem}`);
    this.name = 'FlowFileError';
    this.file = file;
    this.line = position?.line;
    this.column = position?.col;
  }
}

export async function readFlowFile(path: string): Promise<Flow> {
  return (await readFlowFileWithPositions(path)).flow;
}

/** Where a field path sits in the flow file (1-based); `atKey` points at the key instead of its value. */
export type PositionOf = (path: PathSegment[], atKey?: boolean) => { line: number; col: number } | undefined;

/**
 * The flow and where each of its fields sits in the file, to place the
 * engine's publish problems (publish-problem-positions.ts). A missing key
 * resolves to the mapping that lacks it; an index past the end, to nothing.
 */
export interface PlacedFlow {
  flow: Flow;
  positionOf: PositionOf;
}

/** Like readFlowFile, and also where each field sits; fails the same way. */
export async function readFlowFileWithPositions(path: string): Promise<PlacedFlow> {
  const text = await readText(path);
  return parseFlowTextWithPositions(path, text);
}

/** `path` only names the file in messages and picks JSON or YAML by extension. */
export function parseFlowText(path: string, text: string): Flow {
  return parseFlowTextWithPositions(path, text).flow;
}

/** Like parseFlowText, and also where each field sits. */
export function parseFlowTextWithPositions(path: string, text: string): PlacedFlow {
  const isJson = extname(path).toLowerCase() === '.json';
  const source = isJson ? parseJson(path, text) : parseYaml(path, text);
  const { document } = source;
  if (document === null || document === undefined)
    throw new FlowFileError(path, 'the file is empty; a flow needs at least company, name and trigger');

  const secret = findSecret(document);
  if (secret) {
    throw new FlowFileError(
      path,
      `${formatPath(secret)}: secrets are never stored in flow files. The engine generates the secret when the flow is first applied and shows it once; ` +
        'to get a new one run `flowhook secret rotate <company> <activity>`. Remove this field.',
      source.positionOf(secret, true),
    );
  }
  const problem = findSchemaProblem(FlowSchema, document);
  if (problem) {
    const where = problem.path.length > 0 ? `${formatPath(problem.path)}: ` : '';
    throw new FlowFileError(path, `${where}${problem.message}`, source.positionOf(problem.path, problem.atKey));
  }
  try {
    return { flow: fromJson(FlowSchema, document as never), positionOf: source.positionOf };
  } catch (error) {
    // The walk above should have caught it; this keeps the promise of a readable message.
    throw new FlowFileError(path, error instanceof Error ? error.message : String(error));
  }
}

/** What a flow file that cannot be read is, by the error's code; other errors say it themselves. */
const UNREADABLE = new Map([
  ['ENOENT', 'no such file'],
  ['EISDIR', 'is a directory, not a flow file'],
  ['EACCES', 'permission denied'],
]);

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new FlowFileError(
      path,
      UNREADABLE.get((error as NodeJS.ErrnoException).code ?? '') ?? (error as Error).message,
    );
  }
}

interface ParsedSource {
  document: unknown;
  positionOf: PositionOf;
}

function parseYaml(path: string, text: string): ParsedSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const [error] = doc.errors;
  if (error) {
    const [summary, snippet] = splitYamlMessage(error.message);
    const problem =
      error.code === 'MULTIPLE_DOCS'
        ? 'a flow file holds one flow (one YAML document); put each flow in its own file'
        : `invalid YAML: ${summary}${snippet}`;
    throw new FlowFileError(path, problem, error.linePos?.[0]);
  }
  return { document: doc.toJS(), positionOf: (segments, atKey) => nodePosition(doc, lineCounter, segments, atKey) };
}

function parseJson(path: string, text: string): ParsedSource {
  let document: unknown;
  try {
    document = text.trim() === '' ? null : JSON.parse(text);
  } catch (error) {
    // V8 already says "... (line 3 column 5)"; that is the place.
    throw new FlowFileError(path, `invalid JSON: ${(error as Error).message}`);
  }
  // JSON is YAML too: the YAML parser only serves to find line numbers.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const usable = doc.errors.length === 0;
  return {
    document,
    positionOf: (segments, atKey) => (usable ? nodePosition(doc, lineCounter, segments, atKey) : undefined),
  };
}

/** yaml's message is "What went wrong at line 3, column 5:\n\n<snippet>"; the position is printed separately. */
function splitYamlMessage(message: string): [string, string] {
  const [head = message, ...rest] = message.split('\n');
  const summary = head.replace(/ at line \d+, column \d+:?$/, '');
  const snippet = rest.join('\n').trimEnd();
  return [summary, snippet ? `\n${snippet.replace(/^\n+/, '').replace(/^/gm, '    ')}` : ''];
}

function nodePosition(
  doc: Document,
  lineCounter: LineCounter,
  path: PathSegment[],
  atKey = false,
): { line: number; col: number } | undefined {
  let node: unknown = doc.contents;
  for (const [i, segment] of path.entries()) {
    const last = i === path.length - 1;
    if (isMap(node)) {
      // Problems spell fields in JSON (`statusCode`); the file may use the proto name (`status_code`), which is read too.
      const pair =
        node.items.find((item) => keyText(item.key) === String(segment)) ??
        node.items.find((item) => sameField(keyText(item.key), String(segment)));
      if (!pair) return position(node);
      node = last && atKey ? pair.key : (pair.value ?? pair.key);
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      break;
    }
  }
  return position(node);

  function position(target: unknown): { line: number; col: number } | undefined {
    const range = (target as { range?: [number, number, number] } | null)?.range;
    return range ? lineCounter.linePos(range[0]) : undefined;
  }
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

/** `status_code` for `statusCode`: the proto spelling of a field the message names in JSON. */
function sameField(key: string | undefined, jsonName: string): boolean {
  return key !== undefined && key.includes('_') && key.replace(/_/g, '').toLowerCase() === jsonName.toLowerCase();
}
