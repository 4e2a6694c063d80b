// A flow as YAML text and back, and where in the text a field is: what the
// YAML tab shows, what it reads while someone types, and where it marks a
// problem that names a field. Pure.
import { fromJson } from '@bufbuild/protobuf';
import { isMap, isScalar, parseDocument, stringify, type Document, type Node } from 'yaml';
import { FlowSchema, type FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';

export type PathSegment = string | number;

export interface TextProblem {
  from: number;
  to: number;
  message: string;
  severity: 'error' | 'warning';
}

export function toYaml(flow: FlowJson): string {
  return stringify(flow, { lineWidth: 0 });
}

export interface ReadYaml {
  doc: Document;
  /** Set when the text is YAML and a flow file the protobuf JSON mapping reads. */
  flow?: FlowJson;
  problems: TextProblem[];
  /** The parsed document as plain data, when the text is YAML at all (for the schema check). */
  data?: unknown;
}

export function readYaml(text: string): ReadYaml {
  const doc = parseDocument(text, { prettyErrors: false });
  const problems: TextProblem[] = [...doc.errors, ...doc.warnings].map((error) => ({
    from: error.pos[0],
    to: Math.max(error.pos[1], error.pos[0] + 1),
    message: error.message.split('\n')[0]!,
    severity: doc.errors.includes(error) ? 'error' : 'warning',
  }));
  if (doc.errors.length > 0) return { doc, problems };
  const data: unknown = doc.toJS() ?? {};
  try {
    fromJson(FlowSchema, data as never);
    return { doc, flow: data as FlowJson, problems, data };
  } catch (error) {
    // protobuf-es names what is wrong but not where; the schema check (flow-schema-check.ts) says where.
    problems.push({
      from: 0,
      to: Math.min(text.length, 1),
      message: `Not a flow file: ${error instanceof Error ? error.message : String(error)}`,
      severity: 'error',
    });
    return { doc, problems, data };
  }
}

/**
 * Where the field at `path` is in the text: its key (so the mark sits on the
 * name of the field), or the deepest part of the path that exists (a missing
 * field's problem is placed at the step or section it belongs to).
 */
export function rangeOf(doc: Document, path: readonly PathSegment[]): { from: number; to: number } | undefined {
  for (let length = path.length; length > 0; length--) {
    const prefix = path.slice(0, length);
    const parent = length === 1 ? doc.contents : doc.getIn(prefix.slice(0, -1), true);
    const last = prefix.at(-1)!;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(last));
      const key = pair?.key as Node | undefined;
      if (key?.range) return { from: key.range[0], to: key.range[1] };
    }
    const node = doc.getIn(prefix, true) as Node | undefined;
    if (node?.range) return { from: node.range[0], to: Math.max(node.range[1], node.range[0] + 1) };
  }
  return undefined;
}
