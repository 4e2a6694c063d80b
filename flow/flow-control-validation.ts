// Publish-time checks of a webhook trigger's flow control: each field's bounds
// (flow-control-settings.ts), key formulas like every formula — plus the
// rule that a key is computed when the call arrives, so it reads Trigger and
// Company only — and the combinations that cannot work, refused with why.
import type { WebhookTriggerJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import { checkTemplate, type FormulaScope } from './formula/index.ts';
import { formatDuration, parseDuration } from '../common/duration.ts';
import { CONTROL_BOUNDS } from './flow-control-settings.ts';

const KEY_ROOTS = {
  names: new Set(['Trigger', 'Company']),
  why: 'a flow-control key is computed when the call arrives, before any step runs; it reads Trigger and Company',
};

export function validateFlowControl(webhook: WebhookTriggerJson, errors: string[]): void {
  const at = 'trigger.webhook';
  const instantOnly = (control: string, why: string) => {
    if (webhook.responseMode === 'WAIT_FOR_RESPONSE_STEP')
      errors.push(`${at}.${control}: only with responseMode INSTANT_RETURN: ${why}`);
  };
  const { concurrency, throttle, debounce, batch } = webhook;
  if (concurrency) {
    checkKey(concurrency.key, `${at}.concurrency.key`, false, errors);
    checkInteger(concurrency.limit, CONTROL_BOUNDS.concurrencyLimit, `${at}.concurrency.limit`, errors);
  }
  if (throttle) {
    const perSecond = throttle.perSecond === undefined ? undefined : Number(throttle.perSecond);
    if (perSecond === undefined)
      errors.push(`${at}.throttle.perSecond: required (executions started per second, e.g. 2 or 0.5)`);
    else if (!Number.isFinite(perSecond) || perSecond <= 0 || perSecond > CONTROL_BOUNDS.perSecond.max)
      errors.push(`${at}.throttle.perSecond: must be more than 0 and at most ${CONTROL_BOUNDS.perSecond.max}`);
    checkInteger(throttle.burst, CONTROL_BOUNDS.burst, `${at}.throttle.burst`, errors);
    checkKey(throttle.key, `${at}.throttle.key`, false, errors);
  }
  if (debounce) {
    checkKey(debounce.key, `${at}.debounce.key`, true, errors);
    const period = checkDuration(
      debounce.period,
      { min: CONTROL_BOUNDS.debouncePeriodMs.min, max: CONTROL_BOUNDS.debouncePeriodMs.max },
      `${at}.debounce.period`,
      true,
      errors,
    );
    const maxWait = checkDuration(
      debounce.maxWait,
      { min: 0, max: CONTROL_BOUNDS.debounceMaxWaitMs.max },
      `${at}.debounce.maxWait`,
      false,
      errors,
    );
    if (period !== undefined && maxWait !== undefined && maxWait < period)
      errors.push(`${at}.debounce.maxWait: must be at least the period (${formatDuration(period)})`);
    instantOnly(
      'debounce',
      'the coalesced execution starts a period after the last call, so no caller could wait for its respond step',
    );
  }
  if (batch) {
    checkKey(batch.key, `${at}.batch.key`, false, errors);
    if (batch.maxSize === undefined)
      errors.push(
        `${at}.batch.maxSize: required (most calls in one batch, ${CONTROL_BOUNDS.batchMaxSize.min}..${CONTROL_BOUNDS.batchMaxSize.max})`,
      );
    else checkInteger(batch.maxSize, CONTROL_BOUNDS.batchMaxSize, `${at}.batch.maxSize`, errors);
    checkDuration(
      batch.maxWait,
      { min: CONTROL_BOUNDS.batchMaxWaitMs.min, max: CONTROL_BOUNDS.batchMaxWaitMs.max },
      `${at}.batch.maxWait`,
      true,
      errors,
    );
    instantOnly(
      'batch',
      'the batch runs once it is full or maxWait has passed, so no caller could wait for its respond step',
    );
  }
  if (debounce && batch)
    errors.push(
      `${at}: debounce and batch cannot both be set: a call goes into one coalesced execution or into one batch`,
    );
  if (webhook.idempotencyKey) {
    checkKey(webhook.idempotencyKey, `${at}.idempotencyKey`, true, errors);
    if (debounce || batch) {
      errors.push(
        `${at}.idempotencyKey: cannot be combined with ${debounce ? 'debounce' : 'batch'}: its executions stand for many calls each, so a repeated call has no execution of its own to join (${debounce ? 'repeats within the period coalesce anyway' : 'an Idempotency-Key header still keeps a retried call out of a second batch'})`,
      );
    }
  }
  if (webhook.idempotencyWindow !== undefined && webhook.idempotencyWindow !== '') {
    if (!webhook.idempotencyKey)
      errors.push(
        `${at}.idempotencyWindow: only with idempotencyKey (an Idempotency-Key header is remembered as long as Temporal keeps its execution)`,
      );
    else
      checkDuration(
        webhook.idempotencyWindow,
        CONTROL_BOUNDS.idempotencyWindowMs,
        `${at}.idempotencyWindow`,
        false,
        errors,
      );
  }
  checkInteger(webhook.priority, CONTROL_BOUNDS.priority, `${at}.priority`, errors);
}

function checkKey(key: string | undefined, path: string, required: boolean, errors: string[]): void {
  if (key === undefined || key.trim() === '') {
    if (required) errors.push(`${path}: required (a formula such as "\${Trigger.Payload.customerId}")`);
    return;
  }
  const scope: FormulaScope = { stepNames: new Set(), roots: KEY_ROOTS, collectedTriggerRead: new Set() };
  for (const problem of checkTemplate(key, { ...scope, readAt: path })) errors.push(`${path}: ${problem}`);
  for (const member of scope.collectedTriggerRead!)
    errors.push(
      `${path}: Trigger.${member} cannot be read here: it is filled after the call's key decided which execution the call joins`,
    );
}

function checkInteger(
  value: number | undefined,
  bounds: { min: number; max: number },
  path: string,
  errors: string[],
): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max)
    errors.push(`${path}: must be a whole number between ${bounds.min} and ${bounds.max}`);
}

/** The duration in ms when it is valid; pushes the problem otherwise. */
function checkDuration(
  text: string | undefined,
  bounds: { min: number; max: number },
  path: string,
  required: boolean,
  errors: string[],
): number | undefined {
  if (text === undefined || text.trim() === '') {
    if (required) errors.push(`${path}: required (a duration such as 10s, 5m, 1h)`);
    return undefined;
  }
  const parsed = parseDuration(text);
  if (typeof parsed === 'string') {
    errors.push(`${path}: ${parsed}`);
    return undefined;
  }
  if (parsed < bounds.min || parsed > bounds.max) {
    errors.push(`${path}: must be between ${formatDuration(bounds.min)} and ${formatDuration(bounds.max)}`);
    return undefined;
  }
  return parsed;
}
