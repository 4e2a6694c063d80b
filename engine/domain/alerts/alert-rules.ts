// Alert rules: create or replace, list, read, delete. What a rule may say is
// checked here, each refusal naming the option to fix; its evaluation
// (alert-workflows.ts) is started and ended by the service around these.
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AlertCondition } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { CONNECTION_NAME, connectionKindNamed } from '../../../flow/index.ts';
import { formatDuration } from '../../../common/duration.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { requireCompany } from '../companies/companies.ts';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { AlertRule, Connection, Flow, type Company } from '../../infrastructure/storage/entities.ts';
import { conditionName, FLOW_CONDITIONS, REFUSED_CALL_REASONS, CONDITION_NAMES } from './alert-conditions.ts';

export const DEFAULT_WINDOW_SECONDS = 300;
export const WINDOW_BOUNDS = { min: 10, max: 7 * 24 * 3600 } as const;
export const MAX_THRESHOLD = 1_000_000;

export interface AlertRuleInput {
  company: string;
  name: string;
  condition: AlertCondition;
  flow: string;
  reason: string;
  /** 0: the default, 1. */
  threshold: number;
  /** 0: the default, 5 minutes. */
  windowSeconds: number;
  connection: string;
}

export async function setAlertRule(
  em: EntityManager,
  input: AlertRuleInput,
): Promise<{ rule: AlertRule; created: boolean }> {
  const name = input.name.trim();
  if (!CONNECTION_NAME.test(name))
    throw new InvalidArgumentError(`alert name: 1..100 letters, digits, _, - or ., got ${JSON.stringify(input.name)}`);
  const company = await requireCompany(em, input.company);
  const fields = await checkedFields(em, company, input);
  const now = new Date();
  return em.transactional(async (tx) => {
    let rule = await tx.findOne(AlertRule, { company: company.id, name }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const created = !rule;
    rule ??= tx.create(AlertRule, {
      id: randomUUID(),
      company,
      name,
      ...fields,
      state: 'ok',
      incidents: 0,
      lastCount: 0,
      lastNotifiedAt: null,
      lastSent: null,
      createdAt: now,
      updatedAt: now,
    });
    Object.assign(rule, fields, { updatedAt: now });
    await tx.flush();
    await tx.populate(rule, ['company']);
    return { rule, created };
  });
}

type RuleFields = Pick<AlertRule, 'condition' | 'flow' | 'reason' | 'threshold' | 'windowSeconds' | 'connection'>;

async function checkedFields(em: EntityManager, company: Company, input: AlertRuleInput): Promise<RuleFields> {
  const condition = conditionName(input.condition);
  if (condition === 'unknown')
    throw new InvalidArgumentError(`--when: one of ${Object.values(CONDITION_NAMES).join(', ')}`);
  const flow = input.flow.trim();
  const reason = input.reason.trim();
  if (flow && !FLOW_CONDITIONS.has(input.condition))
    throw new InvalidArgumentError(`--flow: only execution-failed and backlog rules watch one flow, not ${condition}`);
  if (flow && !(await em.findOne(Flow, { company, name: flow })))
    throw new NotFoundError(
      `Company "${company.name}" has no flow "${flow}" (see: flowhook flow list --company ${shellArg(company.name)})`,
    );
  if (reason && input.condition !== AlertCondition.CALLS_REFUSED)
    throw new InvalidArgumentError(`--reason: only calls-refused rules filter by refusal reason, not ${condition}`);
  if (reason && !REFUSED_CALL_REASONS.includes(reason))
    throw new InvalidArgumentError(
      `--reason: "${reason}" is no refusal reason; e.g. secret_mismatch, signature_mismatch, rate_limited (the reference lists them all)`,
    );
  const threshold = input.threshold || 1;
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > MAX_THRESHOLD)
    throw new InvalidArgumentError(`--threshold: a whole number from 1 to ${MAX_THRESHOLD}`);
  if (input.condition === AlertCondition.NO_WORKER && threshold !== 1)
    throw new InvalidArgumentError('--threshold: a no-worker rule fires when no worker polls; leave --threshold out');
  const windowSeconds = input.windowSeconds || DEFAULT_WINDOW_SECONDS;
  if (!Number.isInteger(windowSeconds) || windowSeconds < WINDOW_BOUNDS.min || windowSeconds > WINDOW_BOUNDS.max)
    throw new InvalidArgumentError(
      `--window: from ${formatDuration(WINDOW_BOUNDS.min * 1000)} to ${formatDuration(WINDOW_BOUNDS.max * 1000)}`,
    );
  const connection = input.connection.trim();
  if (!connection) throw new InvalidArgumentError('--connection: the alert channel to notify is required');
  await requireAlertChannel(em, company, connection);
  return { condition, flow: flow || null, reason: reason || null, threshold, windowSeconds, connection };
}

/** The connection must exist and be an alert channel (slack, teams, webhook, smtp). */
async function requireAlertChannel(em: EntityManager, company: Company, name: string): Promise<void> {
  const found = await em.findOne(Connection, { company, name });
  const create = `flowhook connection set ${shellArg(company.name)} ${shellArg(name)} --type slack|teams|webhook|smtp …`;
  if (!found)
    throw new NotFoundError(`Company "${company.name}" has no connection "${name}" (create it with: ${create})`);
  if (connectionKindNamed(found.type)?.purpose !== 'alerts')
    throw new InvalidArgumentError(
      `--connection: "${name}" is a ${found.type} connection, which carries requests, not alerts; name a slack, teams, webhook or smtp connection (${create})`,
    );
}

export async function listAlertRules(em: EntityManager, companyName: string): Promise<AlertRule[]> {
  const where = companyName ? { company: await requireCompany(em, companyName) } : {};
  return em.find(AlertRule, where, { orderBy: { company: { name: 'asc' }, name: 'asc' }, populate: ['company'] });
}

export async function requireAlertRule(em: EntityManager, companyName: string, name: string): Promise<AlertRule> {
  const company = await requireCompany(em, companyName);
  const rule = await em.findOne(AlertRule, { company, name }, { populate: ['company'] });
  if (!rule)
    throw new NotFoundError(
      `Company "${company.name}" has no alert "${name}" (see: flowhook alert list ${shellArg(company.name)})`,
    );
  return rule;
}

/** The rule the workflow runs for: the same row it started with, else NotFound (the workflow ends). */
export async function requireRuleById(
  em: EntityManager,
  companyName: string,
  name: string,
  id: string,
): Promise<AlertRule> {
  const rule = await requireAlertRule(em, companyName, name);
  if (rule.id !== id) throw new NotFoundError(`alert "${name}" was replaced`);
  return rule;
}

export async function deleteAlertRule(em: EntityManager, companyName: string, name: string): Promise<AlertRule> {
  const rule = await requireAlertRule(em, companyName, name);
  await em.nativeDelete(AlertRule, { id: rule.id });
  return rule;
}
