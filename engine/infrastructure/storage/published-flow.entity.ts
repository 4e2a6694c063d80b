import { defineEntity, p } from '@mikro-orm/core';
import { owningCompany } from './company-row.ts';
import { Flow } from './flow.entity.ts';
import { FlowVersion } from './flow-version.entity.ts';

/**
 * The registry of published webhook triggers: one row per published flow. The
 * unique index on (company, activity) is what guarantees "exactly one published
 * flow per activity", even when two publishes race.
 */
export const PublishedFlowSchema = defineEntity({
  name: 'PublishedFlow',
  tableName: 'published_flow',
  uniques: [{ name: 'published_flow_company_activity_unique', properties: ['company', 'activity'] }],
  properties: {
    flow: () => p.oneToOne(Flow).primary().owner().deleteRule('cascade'),
    company: owningCompany(),
    activity: p.string().length(250).check('activity = lower(activity)'),
    flowVersion: () => p.manyToOne(FlowVersion),
    publishedAt: p.datetime(),
  },
});

export class PublishedFlow extends PublishedFlowSchema.class {}
PublishedFlowSchema.setClass(PublishedFlow);
