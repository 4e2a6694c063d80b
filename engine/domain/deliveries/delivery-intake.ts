// RecordDeliveries: the facade's reports become rows of the delivery log in one
// statement per batch. Refused and failed deliveries beyond the flood bound
// (flood-bound.ts) are not stored one by one: each adds to its summary row
// (an upsert that raises `count`), so the rows one minute can add are bounded
// whatever a flood sends. A body is kept only for an accepted call of a flow
// without doNotLogPayload, sealed (delivery-body.ts). Headers are redacted again
// here (the facade did it already): an invoke account other than the facade's
// could report them, and the table must never hold a credential.
import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { DeliveryReport } from '../../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { isCredential, MAX_HEADERS, REDACTED } from '../../../common/delivery-redaction.ts';
import { InvalidArgumentError } from '../../errors.ts';
import { Company } from '../../infrastructure/storage/entities.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import type { PublishedFlowLookup } from '../flows/published-flow-lookup.ts';
import { sealRequest } from './delivery-body.ts';
import { FloodBound } from './flood-bound.ts';

export const MAX_REPORTS_PER_CALL = 1000;
export const ROUTES = ['endpoint', 'resume', 'answer', 'provider', 'callback'] as const;
export const DELIVERY_OUTCOMES = ['accepted', 'refused', 'failed'] as const;
export const ANSWERS = ['responded', 'sync-timeout', 'flow-ended', 'instant-return'] as const;
/** Reasons are codes (refusal reasons and delivery-reasons' table): anything else is not one. */
const REASON = /^[a-z][a-z0-9_]{0,59}$/;
/** Replays start from this: bodies of the routes that start executions. */
const BODY_ROUTES = new Set(['endpoint', 'provider']);
const MAX_TEXT = 300;
/** A report's age is the facade's; beyond this, it is taken as received now (it cannot move rows back in time). */
const MAX_AGE_MS = 3_600_000;

export interface DeliveryIntakeDeps {
  orm: MikroORM;
  keyring: SecretKeyring;
  publishedFlows: PublishedFlowLookup;
}

export interface IntakeResult {
  stored: number;
  counted: number;
}

interface Row {
  id: string;
  ageMs: number;
  route: string;
  company: string | null;
  activity: string | null;
  caller: string | null;
  sender: string | null;
  outcome: string;
  reason: string | null;
  status: number;
  answer: string | null;
  latencyMs: number | null;
  requestId: string | null;
  executionId: string | null;
  headers: string | null;
  body: Buffer | null;
  /** The secret store key the body is wrapped under; null without a body. */
  keyId: string | null;
  count: number;
}

const COLUMNS =
  '"id", "received_at", "route", "company", "activity", "caller", "sender", "outcome", "reason", "status", "answer", "latency_ms", "request_id", "execution_id", "headers", "body", "key_id", "count"';

export function createDeliveryIntake(deps: DeliveryIntakeDeps, bound: FloodBound, now: () => number = Date.now) {
  return async function recordDeliveries(reports: readonly DeliveryReport[]): Promise<IntakeResult> {
    if (reports.length > MAX_REPORTS_PER_CALL)
      throw new InvalidArgumentError(`at most ${MAX_REPORTS_PER_CALL} deliveries per call`);
    const em = deps.orm.em.fork();
    const rows: Row[] = [];
    const summaries = new Map<string, Row>();
    let counted = 0;
    const at = now();
    for (const report of reports) {
      const row = await rowOf(deps, em, report);
      if (!row) continue;
      const admission = bound.admit({
        at,
        sender: row.sender ?? '',
        company: row.company ?? '',
        outcome: row.outcome,
        reason: row.reason ?? '',
      });
      if (admission.store) {
        rows.push(row);
        continue;
      }
      counted++;
      const summary = summaries.get(admission.summaryId);
      if (summary) summary.count++;
      else
        summaries.set(admission.summaryId, {
          ...row,
          id: admission.summaryId,
          sender: admission.sender || null,
          company: admission.company || null,
          caller: null,
          requestId: null,
          executionId: null,
          headers: null,
          body: null,
          keyId: null,
          latencyMs: null,
          count: 1,
        });
    }
    const all = [...rows, ...summaries.values()];
    if (all.length > 0) await insertRows(em, all);
    return { stored: rows.length, counted };
  };
}

async function insertRows(em: EntityManager, rows: readonly Row[]): Promise<void> {
  const params: unknown[] = [];
  const values = rows.map((row) => {
    params.push(
      row.id,
      row.ageMs,
      row.route,
      row.company,
      row.activity,
      row.caller,
      row.sender,
      row.outcome,
      row.reason,
      row.status,
      row.answer,
      row.latencyMs,
      row.requestId,
      row.executionId,
      row.headers,
      row.body,
      row.keyId,
      row.count,
    );
    return `(?, date_trunc('milliseconds', now() - make_interval(secs => ? / 1000.0)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)`;
  });
  // Milliseconds: the page token (delivery-reads.ts) names a row by its time as JavaScript holds it.
  // A summary row met again (a later batch of the same minute) counts on; its first fields stay.
  await em
    .getConnection()
    .execute(
      `insert into "delivery" (${COLUMNS}) values ${values.join(', ')} on conflict ("id") do update set "count" = "delivery"."count" + excluded."count"`,
      params,
      'run',
    );
}

async function rowOf(deps: DeliveryIntakeDeps, em: EntityManager, report: DeliveryReport): Promise<Row | undefined> {
  const route = oneOf(ROUTES, report.route);
  const outcome = oneOf(DELIVERY_OUTCOMES, report.outcome);
  // Not a report this engine understands (a newer facade's route): not stored rather than stored wrong.
  if (!route || !outcome) return undefined;
  const id = randomUUID();
  const company = text(report.company);
  const activity = text(report.activity)?.toLowerCase() ?? null;
  const accepted = outcome === 'accepted';
  const keepsBody = accepted && BODY_ROUTES.has(route) && report.body.length > 0 && company && activity;
  const sealed =
    keepsBody && (await logsPayload(deps, em, company, activity)) ? sealRequest(deps.keyring, id, report) : undefined;
  return {
    id,
    ageMs: Math.min(Math.max(report.receivedMsAgo, 0), MAX_AGE_MS),
    route,
    company,
    activity,
    caller: text(report.caller),
    sender: text(report.sender),
    outcome,
    reason: accepted ? null : REASON.test(report.reason) ? report.reason : 'unknown',
    status: report.status,
    answer: oneOf(ANSWERS, report.answer) ?? null,
    latencyMs: report.latencyMs,
    requestId: text(report.requestId),
    executionId: accepted ? text(report.executionId) : null,
    headers: JSON.stringify(
      report.headers
        .slice(0, MAX_HEADERS + 1)
        .map(({ name, value }) => [name.slice(0, 100), isCredential(name, value) ? REDACTED : value.slice(0, 300)]),
    ),
    body: sealed?.body ?? null,
    keyId: sealed?.keyId ?? null,
    count: 1,
  };
}

/** Whether the flow now published for the call keeps its payloads in logs (doNotLogPayload keeps them out of this one too). */
async function logsPayload(
  deps: DeliveryIntakeDeps,
  em: EntityManager,
  company: string,
  activity: string,
): Promise<boolean> {
  const published = await deps.publishedFlows.findIfPublished(em, company, activity);
  return published !== undefined && published.flowVersion.definition.trigger?.webhook?.doNotLogPayload !== true;
}

/** The names of the companies an account bound to companies acts for. */
export async function reportedCompanies(orm: MikroORM, companyIds: readonly string[]): Promise<Set<string>> {
  if (companyIds.length === 0) return new Set();
  const companies = await orm.em.fork().find(Company, { id: { $in: [...companyIds] } }, { fields: ['name'] });
  return new Set(companies.map((company) => company.name));
}

function oneOf<T extends string>(allowed: readonly T[], value: string): T | undefined {
  return (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

function text(value: string): string | null {
  if (!value) return null;
  return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
}
