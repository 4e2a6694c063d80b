import { defineEntity, p } from '@mikro-orm/core';
import type { FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { Flow } from './flow.entity.ts';
import { uuidRow } from './uuid-row.ts';

/**
 * One immutable version of a flow definition (the flow file's protobuf JSON).
 * Executions run the version that was published when they started.
 */
export const FlowVersionSchema = defineEntity({
  name: 'FlowVersion',
  tableName: 'flow_version',
  uniques: [{ name: 'flow_version_flow_version_unique', properties: ['flow', 'version'] }],
  properties: uuidRow({
    flow: () => p.manyToOne(Flow).deleteRule('cascade'),
    version: p.integer(),
    /** Stored lowercase: activities match case-insensitively. */
    activity: p.string().length(250).check('activity = lower(activity)'),
    definition: p.json<FlowJson>(),
    createdAt: p.datetime(),
  }),
});

export class FlowVersion extends FlowVersionSchema.class {}
FlowVersionSchema.setClass(FlowVersion);
