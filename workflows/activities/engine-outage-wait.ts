// An engine that restarts (a deploy, a crash, kill -9) is flowhook's own
// outage, not a failure of the system a flow calls: an activity that asks the
// engine (connection and egress list, records, callback keys) waits for it
// instead of spending the step's attempts, which are the flow author's budget
// for the systems the flow talks to. Only UNAVAILABLE is waited out (no
// answer: the engine is down or not listening yet); every answer the engine
// gives, refusals included, travels on at once. The wait is bounded: at most
// ENGINE_OUTAGE_WAIT_MS, and inside an activity at most half the time its
// attempt has left, so the call itself still fits; after that the error goes
// to Temporal's retry policy as before.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { Context } from '@temporalio/activity';

export const ENGINE_OUTAGE_WAIT_MS = 30_000;
const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 2_000;

export interface EngineOutageWaitOptions {
  waitMs?: number;
  /** The time an activity attempt has left, in milliseconds; undefined outside an activity. Tests inject their own. */
  attemptTimeLeftMs?: () => number | undefined;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export function engineOutageWait(options: EngineOutageWaitOptions = {}): Interceptor {
  const waitMs = options.waitMs ?? ENGINE_OUTAGE_WAIT_MS;
  const attemptTimeLeftMs = options.attemptTimeLeftMs ?? activityAttemptTimeLeftMs;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  return (next) => async (request) => {
    const left = attemptTimeLeftMs();
    const deadline = now() + Math.min(waitMs, left === undefined ? waitMs : Math.max(0, left / 2));
    let delay = FIRST_DELAY_MS;
    for (;;) {
      try {
        return await next(request);
      } catch (error) {
        const unavailable = ConnectError.from(error).code === Code.Unavailable;
        if (!unavailable || request.signal.aborted || now() + delay > deadline) throw error;
        await sleep(delay, request.signal);
        delay = Math.min(2 * delay, MAX_DELAY_MS);
      }
    }
  };
}

function activityAttemptTimeLeftMs(): number | undefined {
  let info;
  try {
    info = Context.current().info;
  } catch {
    return undefined; // not inside an activity
  }
  if (info.startToCloseTimeoutMs === undefined) return undefined;
  return info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs - Date.now();
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
