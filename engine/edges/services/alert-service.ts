// AlertService (admin) and AlertCheckService (the alert workflows' records-
// scope calls): adapters between the RPC messages and engine/domain/alerts/,
// one EntityManager fork per call. A rule is stored first and its workflow
// started after: a failed start leaves the rule, and `alert set` again starts it.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { LockMode } from '@mikro-orm/core';
import {
  AlertSchema,
  AlertState,
  type AlertCheckService,
  type AlertService,
} from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { InvalidArgumentError } from '../../errors.ts';
import { AlertRule } from '../../infrastructure/storage/entities.ts';
import { conditionNamed } from '../../domain/alerts/alert-conditions.ts';
import { countAlert } from '../../domain/alerts/alert-counts.ts';
import { alertParts, type AlertDeps } from '../../domain/alerts/alert-deps.ts';
import { notifyTest, notifyTransition } from '../../domain/alerts/alert-notify.ts';
import {
  deleteAlertRule,
  listAlertRules,
  requireAlertRule,
  requireRuleById,
  setAlertRule,
} from '../../domain/alerts/alert-rules.ts';
import { startAlertWorkflow, stopAlertWorkflow } from '../../domain/alerts/alert-workflows.ts';
import { optionalTimestamp } from './admin-messages.ts';

export function createAlertService(deps: AlertDeps): ServiceImpl<typeof AlertService> {
  const fork = () => deps.orm.em.fork();
  const parts = alertParts(deps);
  return {
    async setAlert(request) {
      if (!request.rule) throw new InvalidArgumentError('rule is required');
      const { rule, created } = await setAlertRule(fork(), { ...request.rule });
      await startAlertWorkflow(parts.workflows, rule, created);
      return { alert: alertMessage(rule), created };
    },
    async listAlerts(request) {
      return { alerts: (await listAlertRules(fork(), request.company)).map(alertMessage) };
    },
    async getAlert(request) {
      return { alert: alertMessage(await requireAlertRule(fork(), request.company, request.name)) };
    },
    async testAlert(request) {
      const em = fork();
      return { summary: await notifyTest(parts.notify, em, await requireAlertRule(em, request.company, request.name)) };
    },
    async deleteAlert(request) {
      const rule = await deleteAlertRule(fork(), request.company, request.name);
      await stopAlertWorkflow(parts.workflows, rule.company.id, rule.name);
      return {};
    },
  };
}

export function createAlertCheckService(deps: AlertDeps): ServiceImpl<typeof AlertCheckService> {
  const fork = () => deps.orm.em.fork();
  const parts = alertParts(deps);
  return {
    async evaluateAlert(request) {
      const em = fork();
      const rule = await requireRuleById(em, request.company, request.name, request.ruleId);
      const count = await countAlert(parts.counts, em, { ...rule, companyName: rule.company.name });
      return { count, threshold: rule.threshold, intervalMs: deps.alerts.evaluationIntervalMs };
    },
    async sendAlert(request) {
      if (request.state !== AlertState.FIRING && request.state !== AlertState.OK)
        throw new InvalidArgumentError('state: FIRING or OK');
      if (request.incident < 1) throw new InvalidArgumentError('incident: 1 or more');
      const em = fork();
      await requireRuleById(em, request.company, request.name, request.ruleId);
      // The row stays locked while the message goes out: a second engine asked the same waits, then finds it sent.
      const sent = await em.transactional(async (tx) => {
        const rule = await tx.findOneOrFail(
          AlertRule,
          { id: request.ruleId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        return notifyTransition(parts.notify, tx, rule, {
          state: request.state === AlertState.FIRING ? 'firing' : 'ok',
          incident: request.incident,
          count: Math.max(0, request.count),
        });
      });
      return { sent };
    },
  };
}

function alertMessage(rule: AlertRule) {
  return create(AlertSchema, {
    id: rule.id,
    rule: {
      company: rule.company.name,
      name: rule.name,
      condition: conditionNamed(rule.condition),
      flow: rule.flow ?? '',
      reason: rule.reason ?? '',
      threshold: rule.threshold,
      windowSeconds: rule.windowSeconds,
      connection: rule.connection,
    },
    state: rule.state === 'firing' ? AlertState.FIRING : AlertState.OK,
    lastCount: rule.lastCount,
    lastNotifiedAt: optionalTimestamp(rule.lastNotifiedAt),
    incidents: rule.incidents,
    createdAt: timestampFromDate(rule.createdAt),
    updatedAt: timestampFromDate(rule.updatedAt),
  });
}
