// Waiting for something the system does in its own time (a change reaching
// another engine through PostgreSQL notifications, Temporal's eventually
// consistent visibility, a log line written when a response closes, a port
// that opens): ask again until the answer is the expected one, rather than
// sleep a fixed time and hope. One helper for every such wait, so each test
// says what it waits for and a timeout says what was seen last.
import { inspect, isDeepStrictEqual } from 'node:util';

export interface EventuallyOptions<T> {
  /** When the probe's value is the one waited for; by default when it is truthy. */
  until?: (value: T) => boolean;
  /** How long to keep asking before giving up (default 15 s). */
  timeoutMs?: number;
  /** The pause between two probes (default 100 ms). */
  intervalMs?: number;
  /** What is waited for, for the timeout's message ("engine B refuses the revoked key"). */
  what?: string;
  /** How the last value is shown on timeout (default: util.inspect, shortened). */
  show?: (value: T) => string;
}

/**
 * Calls `probe` until `until` holds for its value and returns that value. On timeout it throws,
 * naming what it waited for and what the probe answered last. A probe that throws ends the wait
 * with that error: a probe that may fail while it waits catches what it expects itself.
 */
export async function eventually<T>(probe: () => T | Promise<T>, options: EventuallyOptions<T> = {}): Promise<T> {
  const {
    until = (value: T) => Boolean(value),
    timeoutMs = 15_000,
    intervalMs = 100,
    what = 'the expected value',
    show = (value: T) => shorten(inspect(value, { depth: 4 })),
  } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (until(value)) return value;
    if (performance.now() >= deadline) throw new Error(`${what}: not within ${timeoutMs} ms; last saw ${show(value)}`);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - performance.now()))),
    );
  }
}

/** For `until`: the value equals `expected` (deeply, as assert.deepStrictEqual compares). */
export const equalTo =
  (expected: unknown) =>
  (value: unknown): boolean =>
    isDeepStrictEqual(value, expected);

function shorten(text: string, limit = 2000): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}
