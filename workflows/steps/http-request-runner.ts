// httpRequest: one outbound call, made by the httpRequest activity (the
// guarded client in workflows/outbound/). The activity's options — timeout,
// retries, summary — are part of the workflow history: changing how they are
// computed breaks the replay of running executions.
import { resolveText, type FormulaContext } from '../../flow/formula/index.ts';
import { placeholdersIn, type CallbackReference } from '../../flow/callback-placeholders.ts';
import { formatDuration, parseDuration } from '../../common/duration.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import { limitsOf } from './step-limits.ts';
import type { StepRunner } from './step-runner.ts';
import { setOwnMember } from '../../common/own-member.ts';

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
const DEFAULT_HTTP_ATTEMPTS = 3;

export const httpRequestRunner: StepRunner<'httpRequest'> = {
  kind: 'httpRequest',
  async run(request, call) {
    const { runtime } = call;
    const ctx = runtime.context;
    const timeoutMs = request.timeout ? parseDuration(request.timeout) : DEFAULT_HTTP_TIMEOUT_MS;
    if (typeof timeoutMs === 'string') throw new StepFailure(`${call.label} failed: ${timeoutMs}`);
    const maxTimeout = limitsOf(call).maxHttpTimeoutMs;
    if (timeoutMs > maxTimeout)
      throw new StepFailure(
        `${call.label} failed: timeout ${formatDuration(timeoutMs)} is longer than the allowed ${formatDuration(maxTimeout)} (FLOWHOOK_MAX_HTTP_TIMEOUT)`,
      );
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {}))
      setOwnMember(headers, name, await resolveText(value, ctx));
    const activities = call.services.activities({
      // Room for an OAuth token fetch (bounded by the same timeout) before the request itself.
      startToCloseTimeout: 2 * timeoutMs + 5_000,
      retry: {
        maximumAttempts: request.maxAttempts ?? DEFAULT_HTTP_ATTEMPTS,
        initialInterval: '1s',
        backoffCoefficient: 2,
      },
      summary: call.label,
    });
    const url = await resolveText(request.url ?? '', ctx);
    const host = waitedHost(url, runtime.input.trigger.doNotLogPayload);
    if (call.position) call.services.showStep(call.position, host);
    const body = request.body ? await resolveText(request.body, ctx) : undefined;
    const callbacks = callbacksIn([url, ...Object.values(headers), body ?? ''], ctx);
    const output = await activities.httpRequest({
      method: (request.method || 'GET').toUpperCase(),
      url,
      headers,
      body,
      timeoutMs,
      idempotencyKey: `${runtime.executionId}/${call.at}`,
      company: runtime.input.company,
      caller: runtime.input.caller,
      executionGrant: runtime.input.executionGrant ?? '',
      connection: request.connection || undefined,
      // Absent when there are none, so the activity input is what it was before callbacks existed.
      ...(callbacks.length > 0 && { callbacks }),
    });
    return { output };
  },
};

/**
 * The callback URLs the request carries, as the placeholders the activity swaps for real URLs.
 * Found in the resolved texts, so a placeholder that came through a variable counts too.
 */
function callbacksIn(texts: string[], ctx: FormulaContext): CallbackReference[] {
  const placeholders = Object.entries(ctx.Callbacks ?? {}).map(([step, { url }]) => ({ step, placeholder: url }));
  const found = placeholdersIn(
    texts,
    placeholders.map((reference) => reference.placeholder),
  );
  return placeholders.filter((reference) => found.has(reference.placeholder));
}

/**
 * The host the step waits for, as the current details show it, or undefined when it must not be
 * shown: for doNotLogPayload flows even a host may be computed from the payload.
 */
function waitedHost(url: string, doNotLogPayload: boolean): string | undefined {
  if (doNotLogPayload) return undefined;
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}
