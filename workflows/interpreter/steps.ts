// What each step type does. Deferrals check the sync window first: a caller
// that still waits cannot be paused (spec §1 rules).
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { StepJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FlowActivities, RecordOperation } from '../activities/index.ts';
import { resolveDeep, resolveText, resolveValue } from '../formula/index.ts';
import { DEFAULT_FLOW_LIMITS, formatDuration, parseDuration, type StepKind } from '../shared/index.ts';
import type { FlowRuntime } from './flow-runtime.ts';
import { deferralBeforeResponse, StepFailure } from './step-errors.ts';
import { showStep, waitedHost, type StepPosition } from './current-details.ts';
import { runSteps } from './run-steps.ts';

export interface StepCall {
  at: string;
  label: string;
  runtime: FlowRuntime;
  /** Where the step stands, for the current details (current-details.ts). */
  position?: StepPosition;
}

export interface StepResult {
  output: unknown;
  skipped?: boolean;
  note?: string;
}

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
const DEFAULT_HTTP_ATTEMPTS = 3;

export async function runStep(step: StepJson, kind: StepKind, call: StepCall): Promise<StepResult> {
  const { runtime } = call;
  const ctx = runtime.context;
  switch (kind) {
    case 'respond': {
      const respond = step.respond!;
      if (!runtime.window.isSync) return { output: null, skipped: true, note: 'ignored: INSTANT_RETURN callers already have the default response' };
      const rawCode = respond.statusCode === undefined ? 200 : await resolveValue(String(respond.statusCode), ctx);
      const statusCode = Number(rawCode);
      if (!Number.isInteger(statusCode) || statusCode < 200 || statusCode > 599) {
        throw new StepFailure(`${call.label} failed: status code ${JSON.stringify(rawCode)} is outside 200..599`);
      }
      const contentType = respond.contentType ? await resolveText(respond.contentType, ctx) : 'application/json';
      const body = respond.body ? await resolveText(respond.body, ctx) : '';
      const output = { statusCode, contentType, body };
      if (!runtime.window.isOpen) {
        // After a sync timeout the answer is kept for the caller to fetch (flowWebhook_Answer); the log line quotes no body.
        if (runtime.window.respondAfterTimeout(statusCode, contentType, body)) return { output, skipped: true, note: 'the sync window had timed out: kept as the late answer the caller may fetch' };
        return { output, skipped: true, note: 'ignored: the caller was already answered (earlier respond or sync timeout)' };
      }
      runtime.window.respond(statusCode, contentType, body);
      return { output };
    }
    case 'sleep': {
      const ms = parseDuration(step.sleep!.duration ?? '');
      if (typeof ms === 'string') throw new StepFailure(`${call.label} failed: ${ms}`);
      checkDeferral(ms, call);
      if (runtime.window.isOpen) throw deferralBeforeResponse(call.label);
      if (call.position) showStep(call.position, new Date(Date.now() + ms).toISOString());
      await sleep(ms, { summary: call.label });
      return { output: { sleptMs: ms } };
    }
    case 'waitUntil': {
      const until = await resolveValue(step.waitUntil!.until ?? '', ctx);
      const at = typeof until === 'number' ? until : Date.parse(String(until));
      if (Number.isNaN(at)) throw new StepFailure(`${call.label} failed: ${JSON.stringify(until)} is not a timestamp`);
      if (runtime.window.isOpen) throw deferralBeforeResponse(call.label);
      const ms = Math.max(0, at - Date.now());
      checkDeferral(ms, call);
      if (ms > 0 && call.position) showStep(call.position, new Date(at).toISOString());
      if (ms > 0) await sleep(ms, { summary: call.label });
      return { output: { until: new Date(at).toISOString(), waitedMs: ms } };
    }
    case 'set': {
      const values = (await resolveDeep(step.set!.variables ?? {}, ctx)) as Record<string, unknown>;
      Object.assign(ctx.Variables, values);
      return { output: values };
    }
    case 'if': {
      const branch = (await resolveValue(step.if!.condition ?? '', ctx)) ? 'then' : 'else';
      await runSteps(step.if![branch] ?? [], `${call.at}.if.${branch}`, runtime);
      return { output: { branch } };
    }
    case 'httpRequest':
      return { output: await runHttpRequest(step, call) };
    case 'log': {
      const message = await resolveText(step.log!.message ?? '', ctx);
      return { output: { message }, note: message };
    }
    case 'record':
      return { output: await runRecord(step, call) };
    case 'fail': {
      const message = step.fail!.message ? await resolveText(step.fail!.message, ctx) : 'the flow chose to fail';
      // The flow's author wrote this message for whoever is told of the failure, the caller included.
      throw new StepFailure(`${call.label}: ${message}`, undefined, `${call.label}: ${message}`);
    }
  }
}

/** The engine's bound on deferrals (FLOWHOOK_MAX_DEFERRAL), for waits only known at run time. */
function checkDeferral(ms: number, call: StepCall): void {
  const max = limitsOf(call).maxDeferralMs;
  if (ms > max) throw new StepFailure(`${call.label} failed: it would wait ${formatDuration(ms)}, longer than the allowed ${formatDuration(max)} (FLOWHOOK_MAX_DEFERRAL)`);
}

function limitsOf(call: StepCall) {
  return call.runtime.input.limits ?? DEFAULT_FLOW_LIMITS;
}

async function runHttpRequest(step: StepJson, call: StepCall): Promise<unknown> {
  const request = step.httpRequest!;
  const { runtime } = call;
  const ctx = runtime.context;
  const timeoutMs = request.timeout ? parseDuration(request.timeout) : DEFAULT_HTTP_TIMEOUT_MS;
  if (typeof timeoutMs === 'string') throw new StepFailure(`${call.label} failed: ${timeoutMs}`);
  const maxTimeout = limitsOf(call).maxHttpTimeoutMs;
  if (timeoutMs > maxTimeout) throw new StepFailure(`${call.label} failed: timeout ${formatDuration(timeoutMs)} is longer than the allowed ${formatDuration(maxTimeout)} (FLOWHOOK_MAX_HTTP_TIMEOUT)`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name] = await resolveText(value, ctx);
  const activities = proxyActivities<FlowActivities>({
    // Room for an OAuth token fetch (bounded by the same timeout) before the request itself.
    startToCloseTimeout: 2 * timeoutMs + 5_000,
    retry: { maximumAttempts: request.maxAttempts ?? DEFAULT_HTTP_ATTEMPTS, initialInterval: '1s', backoffCoefficient: 2 },
    summary: call.label,
  });
  const url = await resolveText(request.url ?? '', ctx);
  const host = waitedHost(url, runtime.input.trigger.doNotLogPayload);
  if (call.position) showStep(call.position, host);
  return activities.httpRequest({
    method: (request.method || 'GET').toUpperCase(),
    url,
    headers,
    body: request.body ? await resolveText(request.body, ctx) : undefined,
    timeoutMs,
    idempotencyKey: `${runtime.executionId}/${call.at}`,
    company: runtime.input.company,
    caller: runtime.input.caller,
    executionGrant: runtime.input.executionGrant ?? '',
    connection: request.connection || undefined,
  });
}

const RECORD_OPERATIONS: RecordOperation[] = ['get', 'insert', 'modify', 'upsert', 'delete'];

async function runRecord(step: StepJson, call: StepCall): Promise<unknown> {
  const record = step.record!;
  const { runtime } = call;
  const ctx = runtime.context;
  const operation = RECORD_OPERATIONS.find((name) => record[name] !== undefined);
  if (!operation) throw new StepFailure(`${call.label} failed: no operation (one of ${RECORD_OPERATIONS.join(', ')})`);
  const key = await resolveValue(record.key ?? '', ctx);
  if ((typeof key !== 'string' && typeof key !== 'number') || String(key) === '') {
    throw new StepFailure(`${call.label} failed: key ${JSON.stringify(key ?? null)} is not a non-empty text or number`);
  }
  let expectedVersion: number | undefined;
  if (record.expectedVersion) {
    expectedVersion = Number(await resolveValue(record.expectedVersion, ctx));
    if (!Number.isInteger(expectedVersion) || expectedVersion < 1) throw new StepFailure(`${call.label} failed: expectedVersion is not a positive integer`);
  }
  const fields = operation === 'insert' || operation === 'modify' || operation === 'upsert' ? record[operation] : undefined;
  const activities = proxyActivities<FlowActivities>({
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 5, initialInterval: '500ms', backoffCoefficient: 2 },
    summary: call.label,
  });
  return activities.record({
    operation,
    company: runtime.input.company,
    caller: runtime.input.caller,
    table: record.table ?? '',
    key: String(key),
    data: fields ? ((await resolveDeep(fields, ctx)) as Record<string, unknown>) : undefined,
    expectedVersion,
    allowMissing: record.get?.allowMissing ?? false,
    idempotencyKey: `${runtime.executionId}/${call.at}`,
    executionId: runtime.executionId,
    executionGrant: runtime.input.executionGrant ?? '',
  });
}
