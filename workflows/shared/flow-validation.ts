// Publish-time validation of a flow definition (spec §2.3, §2.4, §7, §8).
// Pure: drafts may be saved invalid; only publishing calls this. Problems name
// the field in the flow file's own spelling, e.g. `steps[2].respond.statusCode`.
import type { FlowJson, RecordStepJson, StepJson, WebhookTriggerJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { checkTemplate, didYouMean, type FormulaScope } from '../formula/index.ts';
import { parseDuration } from './duration.ts';
import { DEFAULT_FLOW_LIMITS, formatDuration, type FlowLimits } from './flow-limits.ts';
import { resolveTrigger, MAX_SYNC_TIMEOUT_SECONDS } from './trigger-defaults.ts';
import { STEP_KINDS, stepKind } from './step-kind.ts';
import { CONNECTION_NAME } from './connection-kinds.ts';
import { validateDirectRoute } from './direct-route.ts';

export interface FlowProblems {
  errors: string[];
  warnings: string[];
}

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export function validateFlow(flow: FlowJson, limits: FlowLimits = DEFAULT_FLOW_LIMITS): FlowProblems {
  const problems: FlowProblems = { errors: [], warnings: [] };
  if (!flow.company?.trim()) problems.errors.push('company: required');
  if (!flow.name?.trim()) problems.errors.push('name: required');
  const webhook = flow.trigger?.webhook;
  if (!webhook) {
    problems.errors.push('trigger.webhook: required (the only trigger type)');
    return problems;
  }
  validateTrigger(webhook, problems.errors);
  const steps = flow.steps ?? [];
  const scope: FormulaScope = { stepNames: stepNamesOf(steps), variablesRead: new Set(), directTriggerRead: new Set() };
  steps.forEach((step, index) => validateStep(step, `steps[${index}]`, problems.errors, limits, scope));
  warnAboutUnsetVariables(scope.variablesRead!, variablesSetBy(steps), problems.warnings);
  warnAboutDirectOutputs(webhook, scope.directTriggerRead!, problems.warnings);
  warnAboutResponseMode(webhook, steps, problems.warnings);
  return problems;
}

function validateTrigger(webhook: WebhookTriggerJson, errors: string[]): void {
  const activity = webhook.activity?.trim() ?? '';
  if (activity === '') errors.push('trigger.webhook.activity: required');
  else if (activity !== webhook.activity) errors.push('trigger.webhook.activity: must not start or end with white space');
  else if (activity.length > 200) errors.push('trigger.webhook.activity: at most 200 characters');
  else if (/[\u0000-\u001f\u007f]/.test(activity)) errors.push('trigger.webhook.activity: must not contain control characters');
  const resolved = resolveTrigger(webhook);
  if (!Number.isInteger(resolved.syncTimeoutSeconds) || resolved.syncTimeoutSeconds < 1 || resolved.syncTimeoutSeconds > MAX_SYNC_TIMEOUT_SECONDS) {
    errors.push(`trigger.webhook.syncTimeoutSeconds: must be between 1 and ${MAX_SYNC_TIMEOUT_SECONDS}`);
  }
  checkStatusCode(resolved.defaultResponse.statusCode, 'trigger.webhook.defaultResponseStatusCode', errors);
  if (resolved.defaultResponse.contentType.trim() === '') errors.push('trigger.webhook.defaultResponseContentType: must not be empty');
  if (webhook.direct) validateDirectRoute(webhook.direct, 'trigger.webhook.direct', errors);
}

function checkStatusCode(code: unknown, field: string, errors: string[]): void {
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 200 || code > 599) {
    errors.push(`${field}: must be an integer status code in 200..599 (1xx codes are not allowed), got ${JSON.stringify(code)}`);
  }
}

function checkText(text: string | undefined, field: string, errors: string[], scope: FormulaScope, required = false): void {
  if (text === undefined || text === '') {
    if (required) errors.push(`${field}: required`);
    return;
  }
  for (const problem of checkTemplate(text, scope)) errors.push(`${field}: ${problem}`);
}

function checkDeep(value: unknown, field: string, errors: string[], scope: FormulaScope): void {
  if (typeof value === 'string') checkText(value, field, errors, scope);
  else if (Array.isArray(value)) value.forEach((item, i) => checkDeep(item, `${field}[${i}]`, errors, scope));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) checkDeep(item, `${field}.${key}`, errors, scope);
  }
}

function validateStep(step: StepJson, path: string, errors: string[], limits: FlowLimits, scope: FormulaScope): void {
  const kind = stepKind(step);
  if (!kind) {
    errors.push(`${path}: has no step type (one of ${STEP_KINDS.join(', ')})`);
    return;
  }
  const at = `${path}.${kind}`;
  if (step.name !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(step.name)) {
    errors.push(`${path}.name: must be an identifier (letters, digits, _), got ${JSON.stringify(step.name)}`);
  }
  if (step.respond) {
    const code = step.respond.statusCode;
    if (typeof code === 'string') checkText(code, `${at}.statusCode`, errors, scope, true);
    else checkStatusCode(code ?? 200, `${at}.statusCode`, errors);
    checkText(step.respond.body, `${at}.body`, errors, scope);
    checkText(step.respond.contentType, `${at}.contentType`, errors, scope);
  } else if (step.sleep) {
    const ms = parseDuration(step.sleep.duration ?? '');
    if (typeof ms === 'string') errors.push(`${at}.duration: ${ms}`);
    else if (ms > limits.maxDeferralMs) errors.push(`${at}.duration: at most ${formatDuration(limits.maxDeferralMs)} (the engine's FLOWHOOK_MAX_DEFERRAL)`);
  } else if (step.waitUntil) {
    const until = step.waitUntil.until ?? '';
    checkText(until, `${at}.until`, errors, scope, true);
    if (until !== '' && !until.includes('${') && !until.includes('{{') && Number.isNaN(Date.parse(until))) {
      errors.push(`${at}.until: "${until}" is not an ISO 8601 timestamp`);
    }
  } else if (step.set) {
    if (!step.set.variables || Object.keys(step.set.variables).length === 0) errors.push(`${at}.variables: at least one variable`);
    else checkDeep(step.set.variables, `${at}.variables`, errors, scope);
  } else if (step.if) {
    checkText(step.if.condition, `${at}.condition`, errors, scope, true);
    (step.if.then ?? []).forEach((inner, i) => validateStep(inner, `${at}.then[${i}]`, errors, limits, scope));
    (step.if.else ?? []).forEach((inner, i) => validateStep(inner, `${at}.else[${i}]`, errors, limits, scope));
  } else if (step.httpRequest) {
    const request = step.httpRequest;
    checkText(request.url, `${at}.url`, errors, scope, true);
    if (request.method && !HTTP_METHODS.has(request.method.toUpperCase())) errors.push(`${at}.method: unknown HTTP method "${request.method}"`);
    for (const [name, value] of Object.entries(request.headers ?? {})) checkText(value, `${at}.headers.${name}`, errors, scope);
    checkText(request.body, `${at}.body`, errors, scope);
    if (request.timeout) {
      const ms = parseDuration(request.timeout);
      if (typeof ms === 'string') errors.push(`${at}.timeout: ${ms}`);
      else if (ms < 1 || ms > limits.maxHttpTimeoutMs) errors.push(`${at}.timeout: between 1ms and ${formatDuration(limits.maxHttpTimeoutMs)} (the engine's FLOWHOOK_MAX_HTTP_TIMEOUT)`);
    }
    if (request.connection !== undefined && !CONNECTION_NAME.test(request.connection)) errors.push(`${at}.connection: 1..100 letters, digits, _, - or ., got ${JSON.stringify(request.connection)}`);
    if (request.maxAttempts !== undefined && (request.maxAttempts < 1 || request.maxAttempts > 20)) errors.push(`${at}.maxAttempts: must be between 1 and 20`);
  } else if (step.log) {
    checkText(step.log.message, `${at}.message`, errors, scope, true);
  } else if (step.fail) {
    checkText(step.fail.message, `${at}.message`, errors, scope);
  } else if (step.record) {
    validateRecord(step.record, at, errors, scope);
  }
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const RECORD_OPERATIONS = ['get', 'insert', 'modify', 'upsert', 'delete'] as const;

function validateRecord(record: RecordStepJson, at: string, errors: string[], scope: FormulaScope): void {
  if (!record.table) errors.push(`${at}.table: required`);
  else if (!TABLE_NAME.test(record.table)) errors.push(`${at}.table: 1..100 letters, digits, _, - or ., got ${JSON.stringify(record.table)}`);
  checkText(record.key, `${at}.key`, errors, scope, true);
  checkText(record.expectedVersion, `${at}.expectedVersion`, errors, scope);
  const operations = RECORD_OPERATIONS.filter((name) => record[name] !== undefined);
  if (operations.length !== 1) {
    errors.push(`${at}: exactly one operation of ${RECORD_OPERATIONS.join(', ')}`);
    return;
  }
  const operation = operations[0]!;
  if (operation === 'insert' || operation === 'modify' || operation === 'upsert') {
    const fields = record[operation];
    if (!fields || Object.keys(fields).length === 0) errors.push(`${at}.${operation}: at least one field`);
    else checkDeep(fields, `${at}.${operation}`, errors, scope);
  }
  if ((operation === 'get' || operation === 'insert') && record.expectedVersion) {
    errors.push(`${at}.expectedVersion: only for modify, upsert and delete`);
  }
}

/**
 * Sync flows: warn about a deferral that can run while nothing has been responded
 * (the runtime answers the caller 500 then). Instant flows: respond steps do nothing.
 */
function warnAboutResponseMode(webhook: WebhookTriggerJson, steps: StepJson[], warnings: string[]): void {
  const mode = resolveTrigger(webhook).responseMode;
  if (mode === 'INSTANT_RETURN') {
    if (containsKind(steps, 'respond')) warnings.push('respond steps are ignored in INSTANT_RETURN mode: the caller already has the default response');
    return;
  }
  const respondedAfter = walkForDeferrals(steps, 'steps', false, warnings);
  if (!respondedAfter && !containsKind(steps, 'respond')) {
    warnings.push('no respond step: callers get the default response when the flow ends or the sync timeout fires');
  }
}

/** Returns whether every path through `steps` has responded by its end. */
function walkForDeferrals(steps: StepJson[], path: string, responded: boolean, warnings: string[]): boolean {
  steps.forEach((step, index) => {
    const at = `${path}[${index}]`;
    if (step.respond) responded = true;
    else if ((step.sleep || step.waitUntil) && !responded) {
      const kind = step.sleep ? 'sleep' : 'waitUntil';
      warnings.push(`${at}.${kind}: a deferral can run before any respond step in WAIT_FOR_RESPONSE_STEP mode; if it runs while the caller still waits, the caller gets HTTP 500`);
    } else if (step.if) {
      const thenDone = walkForDeferrals(step.if.then ?? [], `${at}.if.then`, responded, warnings);
      const elseDone = walkForDeferrals(step.if.else ?? [], `${at}.if.else`, responded, warnings);
      responded = thenDone && elseDone;
    }
  });
  return responded;
}

function containsKind(steps: StepJson[], kind: 'respond'): boolean {
  return steps.some((step) => step[kind] !== undefined || (step.if !== undefined && (containsKind(step.if.then ?? [], kind) || containsKind(step.if.else ?? [], kind))));
}

/** Names of all steps, nested ones included: `Steps.<name>` may refer to any of them. */
function stepNamesOf(steps: StepJson[], names = new Set<string>()): Set<string> {
  for (const step of steps) {
    if (step.name) names.add(step.name);
    if (step.if) {
      stepNamesOf(step.if.then ?? [], names);
      stepNamesOf(step.if.else ?? [], names);
    }
  }
  return names;
}

function variablesSetBy(steps: StepJson[], names = new Set<string>()): Set<string> {
  for (const step of steps) {
    for (const name of Object.keys(step.set?.variables ?? {})) names.add(name);
    if (step.if) {
      variablesSetBy(step.if.then ?? [], names);
      variablesSetBy(step.if.else ?? [], names);
    }
  }
  return names;
}

/** A variable no step sets reads as nothing at run time: likely a typo, but not certainly an error (it may be tested for absence). */
/** Trigger.Body, Trigger.Headers, … exist only on the provider route: without `direct` they read as nothing. */
function warnAboutDirectOutputs(webhook: WebhookTriggerJson, read: ReadonlySet<string>, warnings: string[]): void {
  if (webhook.direct || read.size === 0) return;
  const names = [...read].map((member) => `Trigger.${member}`).join(', ');
  warnings.push(`${names}: only the provider route (trigger.webhook.direct) fills ${read.size === 1 ? 'it' : 'them'}; without direct ${read.size === 1 ? 'it is' : 'they are'} empty at run time`);
}

function warnAboutUnsetVariables(read: ReadonlySet<string>, set: ReadonlySet<string>, warnings: string[]): void {
  for (const name of read) {
    if (set.has(name)) continue;
    const suggestion = didYouMean(name, set, (candidate) => `Variables.${candidate}`);
    const known = set.size > 0 ? `; the set steps set ${[...set].join(', ')}` : '';
    warnings.push(`Variables.${name} is read, but no set step sets it${suggestion}: it is empty at run time${known}`);
  }
}
