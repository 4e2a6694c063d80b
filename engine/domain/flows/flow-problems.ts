// Publish problems as the flow card shows them (FlowAdminService.CheckFlow):
// each one split into the field it names, in the flow file's spelling and as
// segments, and what is wrong with it — so the console can mark the field, or
// the YAML line, instead of showing a list of texts.
import { create } from '@bufbuild/protobuf';
import {
  FieldPathSegmentSchema,
  FlowProblem_Severity,
  FlowProblemSchema,
  type FlowProblem,
} from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { splitProblem } from '../../../flow/field-path.ts';
import type { FlowProblems } from '../../../flow/index.ts';

export function flowProblemMessages(problems: FlowProblems): FlowProblem[] {
  return [
    ...problems.errors.map((text) => problemMessage(text, FlowProblem_Severity.ERROR)),
    ...problems.warnings.map((text) => problemMessage(text, FlowProblem_Severity.WARNING)),
  ];
}

function problemMessage(text: string, severity: FlowProblem_Severity): FlowProblem {
  const { path, pathText, message } = splitProblem(text);
  const segments = (path ?? []).map((segment) =>
    create(FieldPathSegmentSchema, {
      kind: typeof segment === 'number' ? { case: 'index', value: segment } : { case: 'field', value: segment },
    }),
  );
  return create(FlowProblemSchema, { severity, fieldPath: pathText, segments, message });
}
