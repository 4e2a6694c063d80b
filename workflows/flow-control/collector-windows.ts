// The collector's bookkeeping, pure so it can be tested alone: which window a
// call joins, when a window is due, and the input of the execution a window
// becomes. Debounce keeps one window whose deadline moves with every call
// (period after the latest, at the latest maxWait after the first — the flow's
// or, without one, the default of flow-control-contract.ts); batch
// fills windows in order, each due when full or maxWait after its first call.
// A window never grows past COLLECTED_LIMITS.windowBytes as Temporal will see
// its execution's input (window-size.ts): a batch closes before, debounce
// drops its oldest payloads (the count stays exact).
import type {
  CollectedCall,
  CollectorPolicy,
  CollectorWindow,
  ExecutionTemplate,
} from '../../flow/flow-control-contract.ts';
import { COLLECTED_LIMITS, defaultDebounceMaxWaitMs } from '../../flow/flow-control-contract.ts';
import type { FlowExecutionInput } from '../../flow/flow-contract.ts';
import { collectedCallBytes, jsonBytes, windowInputBytes } from '../../flow/window-size.ts';

/** A window whose execution could not be started is tried again after 1 s, 2 s, 4 s … at most a minute. */
const START_RETRY_MS = { first: 1000, max: 60_000 } as const;

export class CollectorWindows {
  #policy: CollectorPolicy;
  readonly #windows: CollectorWindow[];
  readonly #templateBytes: number;

  constructor(policy: CollectorPolicy, template: ExecutionTemplate, windows: CollectorWindow[] = []) {
    this.#policy = policy;
    this.#windows = windows;
    this.#templateBytes = jsonBytes(template);
  }

  get windows(): readonly CollectorWindow[] {
    return this.#windows;
  }

  get isEmpty(): boolean {
    return this.#windows.length === 0;
  }

  /** A debounce with no maxWait (its collector began before the default) that has not taken the default yet. */
  get unbounded(): boolean {
    return this.#policy.kind === 'debounce' && this.#policy.maxWaitMs === undefined;
  }

  /** From now on the unbounded debounce ends at the default maxWait too, counted from each window's first call. */
  takeDefaultMaxWait(): void {
    const policy = this.#policy;
    if (policy.kind === 'debounce' && policy.maxWaitMs === undefined)
      this.#policy = { ...policy, maxWaitMs: defaultDebounceMaxWaitMs(policy.periodMs) };
  }

  /** Adds the call to the open window (or opens one); returns the id of the execution it joins. */
  add(call: CollectedCall, now: number): string {
    const bytes = collectedCallBytes(call);
    let window = this.#windows.at(-1);
    if (!window || window.retryAt !== undefined || (this.#policy.kind === 'batch' && !this.#fits(window, bytes))) {
      window = { seed: call.seed, openedAt: now, lastAt: now, count: 0, calls: [], bytes: 0 };
      this.#windows.push(window);
    }
    window.lastAt = now;
    window.count += 1;
    window.calls.push({
      payloadJson: call.payloadJson,
      caller: call.caller,
      receivedAt: new Date(now).toISOString(),
      ...(call.direct && { direct: call.direct }),
    });
    window.bytes += bytes;
    if (call.held && !window.pauseGate)
      window.pauseGate = call.seed.control?.gates.find((gate) => gate.kind === 'pause');
    if (this.#policy.kind === 'debounce') this.#trimToLatest(window, bytes);
    return window.seed.workflowId;
  }

  /** Removes and returns the windows due at `now`, oldest first. */
  takeDue(now: number): CollectorWindow[] {
    const due: CollectorWindow[] = [];
    while (this.#windows.length > 0 && this.#dueAt(this.#windows[0]!) <= now) due.push(this.#windows.shift()!);
    return due;
  }

  /** When the first window is due (ms since the epoch), if any. */
  nextDue(): number | undefined {
    const first = this.#windows[0];
    return first && this.#dueAt(first);
  }

  /** A window whose execution could not be started: back at the front, tried again after a growing pause. It takes no more calls. */
  retryLater(window: CollectorWindow, now: number): void {
    window.failedStarts = (window.failedStarts ?? 0) + 1;
    window.retryAt = now + Math.min(START_RETRY_MS.max, START_RETRY_MS.first * 2 ** (window.failedStarts - 1));
    this.#windows.unshift(window);
  }

  /** The size of the execution input a window becomes, at most (window-size.ts). */
  inputBytes(window: CollectorWindow): number {
    const latest = window.calls.at(-1);
    return windowInputBytes(this.#templateBytes, window.bytes, latest ? collectedCallBytes(latest) : 0);
  }

  #dueAt(window: CollectorWindow): number {
    if (window.retryAt !== undefined) return window.retryAt;
    const policy = this.#policy;
    if (policy.kind === 'debounce') {
      const quiet = window.lastAt + policy.periodMs;
      return policy.maxWaitMs === undefined ? quiet : Math.min(quiet, window.openedAt + policy.maxWaitMs);
    }
    // A full batch — or one a later call already had to leave — is due now.
    const full = window.count >= policy.maxSize || window !== this.#windows.at(-1);
    return full ? window.openedAt : window.openedAt + policy.maxWaitMs;
  }

  #fits(window: CollectorWindow, bytes: number): boolean {
    const policy = this.#policy;
    // The new call would be the latest: counted once more.
    return (
      policy.kind === 'batch' &&
      window.count < policy.maxSize &&
      windowInputBytes(this.#templateBytes, window.bytes + bytes, bytes) <= COLLECTED_LIMITS.windowBytes
    );
  }

  /** Debounce keeps the latest payloads within the bounds (the count stays exact). */
  #trimToLatest(window: CollectorWindow, latestBytes: number): void {
    const tooLarge = () =>
      windowInputBytes(this.#templateBytes, window.bytes, latestBytes) > COLLECTED_LIMITS.windowBytes;
    while (window.calls.length > 1 && (window.calls.length > COLLECTED_LIMITS.coalescedPayloads || tooLarge())) {
      window.bytes -= collectedCallBytes(window.calls.shift()!);
    }
  }
}

/** The input of the execution a window becomes: the latest call's payload, and the window in Trigger.Coalesced or Trigger.Batch. */
export function windowInput(
  template: ExecutionTemplate,
  policy: CollectorPolicy,
  window: CollectorWindow,
): FlowExecutionInput {
  const latest = window.calls.at(-1)!;
  const gates = [
    ...(window.pauseGate ? [window.pauseGate] : []),
    ...(window.seed.control?.gates.filter((gate) => gate.kind !== 'pause') ?? []),
  ];
  return {
    ...template,
    payloadJson: latest.payloadJson,
    ...(latest.direct && { direct: latest.direct }),
    caller: latest.caller,
    executionGrant: window.seed.executionGrant,
    ...(gates.length > 0 && { control: { gates, handOn: true as const } }),
    ...(policy.kind === 'debounce'
      ? { coalesced: { count: window.count, payloads: window.calls.map((call) => call.payloadJson) } }
      : {
          batch: window.calls.map((call) => ({
            payload: call.payloadJson,
            caller: call.caller,
            receivedAt: call.receivedAt,
          })),
        }),
  };
}
