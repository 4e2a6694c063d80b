// respond: answers the caller waiting in WAIT_FOR_RESPONSE_STEP mode.
// Instant callers already have the default response; after the sync window
// closed the answer is kept as the late answer the caller may fetch.
import { resolveText, resolveValue } from '../../flow/formula/index.ts';
import { StepFailure } from '../../flow/step-failure.ts';
import type { StepRunner } from './step-runner.ts';

export const respondRunner: StepRunner<'respond'> = {
  kind: 'respond',
  async run(respond, call) {
    const { runtime } = call;
    const ctx = runtime.context;
    if (!runtime.window.isSync)
      return { output: null, skipped: true, note: 'ignored: INSTANT_RETURN callers already have the default response' };
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
      if (runtime.window.respondAfterTimeout(statusCode, contentType, body))
        return {
          output,
          skipped: true,
          note: 'the sync window had timed out: kept as the late answer the caller may fetch',
        };
      return {
        output,
        skipped: true,
        note: 'ignored: the caller was already answered (earlier respond or sync timeout)',
      };
    }
    runtime.window.respond(statusCode, contentType, body);
    return { output };
  },
};
