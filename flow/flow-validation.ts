// Publish-time validation of a flow definition (trigger fields, step fields,
// respond status codes 200..599, …).
// Pure: drafts may be saved invalid; only publishing calls this. Problems name
// the field in the flow file's own spelling, e.g. `steps[2].respond.statusCode`.
// What each step kind checks lives in its model (flow/steps/); this file
// checks the trigger and the flow as a whole, driven by the step registry
// (flow/steps/step-registry.ts).
import { exceedsNameLimit, nameLimitRule } from '../common/name-limits.ts';
import type { FlowJson, StepJson, WebhookTriggerJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import { COLLECTED_TRIGGER, didYouMean, type FormulaScope } from './formula/index.ts';
import { STEP_KINDS, stepBody, stepKind, stepModel, walkSteps } from './steps/step-registry.ts';
import type { StepValidation } from './steps/step-model.ts';
import { callbackStepsOf } from './steps/callback-steps.ts';
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from '../common/flow-limits.ts';
import { resolveTrigger, MAX_SYNC_TIMEOUT_SECONDS } from './trigger-defaults.ts';
import { checkStatusCode } from './field-checks.ts';
import { validateDirectRoute } from './direct-route.ts';
import { validateFlowControl } from './flow-control-validation.ts';
import { hasControlCharacter } from '../common/control-characters.ts';

export interface FlowProblems {
  errors: string[];
  warnings: string[];
}

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
  const scope: FormulaScope = {
    stepNames: stepNamesOf(steps),
    callbackSteps: callbackStepsOf(steps),
    variablesRead: new Map(),
    directTriggerRead: new Set(),
    collectedTriggerRead: new Set(),
  };
  const check: StepValidation = {
    errors: problems.errors,
    limits,
    scope,
    validateSteps: (inner, path) => inner.forEach((step, index) => validateStep(step, `${path}[${index}]`, check)),
  };
  check.validateSteps(steps, 'steps');
  warnAboutUnsetVariables(scope.variablesRead!, variablesSetBy(steps), problems.warnings);
  warnAboutDirectOutputs(webhook, scope.directTriggerRead!, problems.warnings);
  warnAboutCollectedOutputs(webhook, scope.collectedTriggerRead!, problems.warnings);
  warnAboutResponseMode(webhook, steps, problems.warnings);
  return problems;
}

function validateTrigger(webhook: WebhookTriggerJson, errors: string[]): void {
  const activity = webhook.activity?.trim() ?? '';
  if (activity === '') errors.push('trigger.webhook.activity: required');
  else if (activity !== webhook.activity)
    errors.push('trigger.webhook.activity: must not start or end with white space');
  else if (exceedsNameLimit('activity', activity)) errors.push(`trigger.webhook.${nameLimitRule('activity')}`);
  else if (hasControlCharacter(activity)) errors.push('trigger.webhook.activity: must not contain control characters');
  const resolved = resolveTrigger(webhook);
  if (
    !Number.isInteger(resolved.syncTimeoutSeconds) ||
    resolved.syncTimeoutSeconds < 1 ||
    resolved.syncTimeoutSeconds > MAX_SYNC_TIMEOUT_SECONDS
  ) {
    errors.push(`trigger.webhook.syncTimeoutSeconds: must be between 1 and ${MAX_SYNC_TIMEOUT_SECONDS}`);
  }
  checkStatusCode(resolved.defaultResponse.statusCode, 'trigger.webhook.defaultResponseStatusCode', errors);
  if (resolved.defaultResponse.contentType.trim() === '')
    errors.push('trigger.webhook.defaultResponseContentType: must not be empty');
  if (webhook.direct) validateDirectRoute(webhook.direct, 'trigger.webhook.direct', errors);
  validateFlowControl(webhook, errors);
}

function validateStep(step: StepJson, path: string, check: StepValidation): void {
  const kind = stepKind(step);
  if (!kind) {
    check.errors.push(`${path}: has no step type (one of ${STEP_KINDS.join(', ')})`);
    return;
  }
  if (step.name !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(step.name)) {
    check.errors.push(`${path}.name: must be an identifier (letters, digits, _), got ${JSON.stringify(step.name)}`);
  }
  stepModel(kind).validate(stepBody(step, kind), `${path}.${kind}`, check, step.name);
}

/**
 * Sync flows: warn about a deferral that can run while nothing has been responded
 * (the runtime answers the caller 500 then). Instant flows: respond steps do nothing.
 */
function warnAboutResponseMode(webhook: WebhookTriggerJson, steps: StepJson[], warnings: string[]): void {
  const mode = resolveTrigger(webhook).responseMode;
  if (mode === 'INSTANT_RETURN') {
    if (containsResponder(steps))
      warnings.push('respond steps are ignored in INSTANT_RETURN mode: the caller already has the default response');
    return;
  }
  const respondedAfter = walkForDeferrals(steps, 'steps', false, warnings);
  if (!respondedAfter && !containsResponder(steps)) {
    warnings.push('no respond step: callers get the default response when the flow ends or the sync timeout fires');
  }
}

/** Returns whether every path through `steps` has responded by its end: a step with branches has when all its branches have. */
function walkForDeferrals(steps: StepJson[], path: string, responded: boolean, warnings: string[]): boolean {
  steps.forEach((step, index) => {
    const at = `${path}[${index}]`;
    const kind = stepKind(step);
    if (!kind) return;
    const behaviour = stepModel(kind);
    if (behaviour.responds) responded = true;
    else if (behaviour.defers && !responded) {
      warnings.push(
        `${at}.${kind}: a deferral can run before any respond step in WAIT_FOR_RESPONSE_STEP mode; if it runs while the caller still waits, the caller gets HTTP 500`,
      );
    } else if (behaviour.branches) {
      const before = responded;
      responded = behaviour
        .branches(stepBody(step, kind))
        .map((branch) => walkForDeferrals(branch.steps, `${at}.${kind}.${branch.name}`, before, warnings))
        .every(Boolean);
    }
  });
  return responded;
}

function containsResponder(steps: StepJson[]): boolean {
  let found = false;
  walkSteps(steps, 'steps', (_step, _at, kind) => {
    if (kind && stepModel(kind).responds) found = true;
  });
  return found;
}

/** Names of all steps, nested ones included: `Steps.<name>` may refer to any of them. */
function stepNamesOf(steps: StepJson[]): Set<string> {
  const names = new Set<string>();
  walkSteps(steps, 'steps', (step) => {
    if (step.name) names.add(step.name);
  });
  return names;
}

function variablesSetBy(steps: StepJson[]): Set<string> {
  const names = new Set<string>();
  walkSteps(steps, 'steps', (step, _at, kind) => {
    if (!kind) return;
    for (const name of stepModel(kind).variablesSet?.(stepBody(step, kind)) ?? []) names.add(name);
  });
  return names;
}

/** A variable no step sets reads as nothing at run time: likely a typo, but not certainly an error (it may be tested for absence). */
/** Trigger.Body, Trigger.Headers, … exist only on the provider route: without `direct` they read as nothing. */
function warnAboutDirectOutputs(webhook: WebhookTriggerJson, read: ReadonlySet<string>, warnings: string[]): void {
  if (webhook.direct || read.size === 0) return;
  const names = [...read].map((member) => `Trigger.${member}`).join(', ');
  warnings.push(
    `${names}: only the provider route (trigger.webhook.direct) fills ${read.size === 1 ? 'it' : 'them'}; without direct ${read.size === 1 ? 'it is' : 'they are'} empty at run time`,
  );
}

/** Trigger.Coalesced and Trigger.Batch are filled by debounce and batch only; elsewhere they read as nothing. */
function warnAboutCollectedOutputs(webhook: WebhookTriggerJson, read: ReadonlySet<string>, warnings: string[]): void {
  for (const member of read) {
    const control = COLLECTED_TRIGGER[member as keyof typeof COLLECTED_TRIGGER];
    if (!webhook[control])
      warnings.push(
        `Trigger.${member}: only trigger.webhook.${control} fills it; without ${control} it is empty at run time`,
      );
  }
}

function warnAboutUnsetVariables(
  read: ReadonlyMap<string, string>,
  set: ReadonlySet<string>,
  warnings: string[],
): void {
  for (const [name, at] of read) {
    if (set.has(name)) continue;
    const suggestion = didYouMean(name, set, (candidate) => `Variables.${candidate}`);
    const known = set.size > 0 ? `; the set steps set ${[...set].join(', ')}` : '';
    // Named by the field that reads it first, as errors are: `flow apply` puts the file's line in front.
    warnings.push(
      `${at ? `${at}: ` : ''}Variables.${name} is read, but no set step sets it${suggestion}: it is empty at run time${known}`,
    );
  }
}
