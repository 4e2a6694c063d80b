// waitForCallback: waits until someone calls back, or the timeout. A deferral
// like sleep. Without a key the step has a one-time callback URL, which an
// httpRequest sends as `${Callbacks.<name>.url}` (the workflow only ever holds
// a placeholder for it: flow/callback-placeholders.ts); with a key, an
// authenticated call naming the key resumes it, once the step has registered
// the key with the engine. Either way the engine delivers the callback as an
// update, which the execution's callback inbox (interpreter/callback-inbox.ts,
// handed in as the runtime's callbacks) holds until the step takes it — a
// provider may answer before the wait starts.
// A timeout is an outcome, not a failure: the flow goes on and decides.
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../common/json-depth.ts';
import { parseExactJson, rememberSpelling, resolveText } from '../../flow/formula/index.ts';
import { deferralBeforeResponse, StepFailure } from '../../flow/step-failure.ts';
import { parseDuration } from '../../common/duration.ts';
import { isWithheldCallbackHeader } from '../../flow/withheld-headers.ts';
import type { ReceivedCallback } from './flow-runtime.ts';
import { checkDeferral } from './step-limits.ts';
import type { StepCall, StepRunner } from './step-runner.ts';

/** `Steps.<name>` of a waitForCallback step. */
export interface CallbackOutput {
  received: boolean;
  timedOut: boolean;
  /** The body exactly as sent; '' when the wait timed out. */
  body: string;
  /** The body parsed, when it is JSON (numbers keep their spelling when written out unchanged). */
  json?: unknown;
  /** Lower-cased names, without credentials and proxy headers. */
  headers: Record<string, string>;
  receivedAt?: string;
}

export const waitForCallbackRunner: StepRunner<'waitForCallback'> = {
  kind: 'waitForCallback',
  async run(wait, call) {
    // The order of checks is part of the contract: which failure a bad step reports.
    const ms = parseDuration(wait.timeout ?? '');
    if (typeof ms === 'string') throw new StepFailure(`${call.label} failed: ${ms}`);
    const name = call.name;
    if (!name) throw new StepFailure(`${call.label} failed: a waitForCallback step needs a name`);
    if (call.runtime.window.isOpen) throw deferralBeforeResponse(call.label);
    checkDeferral(ms, call);
    // Registered before the wait starts: a key nobody registered finds no execution.
    if (wait.key) await registerKey(wait.key, name, ms, call);
    if (call.position) call.services.showStep(call.position, new Date(Date.now() + ms).toISOString());
    const inbox = call.runtime.callbacks;
    // A callback held already needs no timer.
    if (!inbox.has(name)) await call.services.waitFor(() => inbox.has(name), ms, { summary: call.label });
    // Taken even when the timer won: a callback accepted in the same moment was answered 2xx, so it counts.
    const received = inbox.take(name);
    if (!received) {
      inbox.expire(name);
      return {
        output: { received: false, timedOut: true, body: '', headers: {} } satisfies CallbackOutput,
        note: 'timed out',
      };
    }
    return { output: callbackOutput(received), note: 'received' };
  },
};

async function registerKey(template: string, step: string, timeoutMs: number, call: StepCall): Promise<void> {
  const { runtime } = call;
  const key = await resolveText(template, runtime.context);
  if (key === '') throw new StepFailure(`${call.label} failed: its key is empty`);
  const activities = call.services.activities({
    startToCloseTimeout: '10s',
    // Another execution waiting for the same key is a non-retryable refusal (the activity's rule).
    retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
    summary: call.label,
  });
  await activities.registerCallbackKey({
    company: runtime.input.company,
    activity: runtime.input.trigger.activity,
    executionId: runtime.executionId,
    executionGrant: runtime.input.executionGrant ?? '',
    step,
    key,
    timeoutMs,
  });
}

/** What the flow reads of an accepted callback. */
export function callbackOutput({ delivery, receivedAt }: ReceivedCallback): CallbackOutput {
  const json = parseBody(delivery.body);
  const output: CallbackOutput = {
    received: true,
    timedOut: false,
    body: delivery.body,
    ...(json !== undefined && { json }),
    headers: flowHeaders(delivery.headers),
    receivedAt,
  };
  // A bare number has no holder of its own: the output holds its spelling (as Trigger does for a payload).
  if (typeof json === 'number') rememberSpelling(output, 'json', delivery.body.trim());
  return output;
}

function parseBody(body: string): unknown {
  // Formulas and the exact parser walk values recursively: absurd nesting stays text.
  if (body.trim() === '' || nestsDeeperThan(body, MAX_JSON_DEPTH)) return undefined;
  try {
    return parseExactJson(body);
  } catch {
    return undefined;
  }
}

function flowHeaders(headers: Record<string, string>): Record<string, string> {
  const kept = Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value])
    // The engine leaves these out already; anyone with access to the Temporal namespace can send the update too.
    .filter(([name]) => !isWithheldCallbackHeader(name));
  // fromEntries defines own properties, so a header named `__proto__` stays data.
  return Object.fromEntries(kept);
}
