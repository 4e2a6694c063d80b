import { defineEntity, p } from '@mikro-orm/core';
import { companyRow } from './company-row.ts';

/**
 * A company's alert rule (engine/domain/alerts/): what it watches, its
 * threshold in a window, the connection (alert channel) it notifies, and the
 * state its notifications left it in. `lastSent` (`<incident>:<state>`) is
 * what makes a notification once-only: a repeat of the one last sent is
 * recognised and not sent again.
 */
export const AlertRuleSchema = defineEntity({
  name: 'AlertRule',
  tableName: 'alert_rule',
  uniques: [{ name: 'alert_rule_company_name_unique', properties: ['company', 'name'] }],
  properties: companyRow({
    name: p.string().length(100),
    condition: p.string().length(40),
    flow: p.string().length(200).nullable(),
    reason: p.string().length(100).nullable(),
    threshold: p.integer(),
    windowSeconds: p.integer(),
    connection: p.string().length(100),
    state: p.string().length(20),
    incidents: p.integer(),
    lastCount: p.integer(),
    lastNotifiedAt: p.datetime().nullable(),
    lastSent: p.string().length(40).nullable(),
  }),
});

export class AlertRule extends AlertRuleSchema.class {}
AlertRuleSchema.setClass(AlertRule);
