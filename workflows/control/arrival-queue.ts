// The executions waiting at a gate, in the order their calls arrived: an
// execution's start time (Temporal's, when the call was accepted) places it,
// not the moment its request reaches the coordinator — two executions started
// a few milliseconds apart may ask in either order, and still wait in the
// order their callers were answered. Pure; repeats of a request change nothing.
import type { QueuedExecution } from '../shared/flow-control-contract.ts';

export class ArrivalQueue {
  readonly #entries: QueuedExecution[];

  constructor(entries: readonly QueuedExecution[] = []) {
    this.#entries = [...entries];
  }

  get length(): number {
    return this.#entries.length;
  }

  has(executionId: string): boolean {
    return this.#entries.some((entry) => entry.executionId === executionId);
  }

  /** Places the execution after every one that arrived before it or at the same time; false when it waits already. */
  add(entry: QueuedExecution): boolean {
    if (this.has(entry.executionId)) return false;
    let at = this.#entries.length;
    while (at > 0 && this.#entries[at - 1]!.arrivedAt > entry.arrivedAt) at -= 1;
    this.#entries.splice(at, 0, entry);
    return true;
  }

  remove(executionId: string): void {
    const at = this.#entries.findIndex((entry) => entry.executionId === executionId);
    if (at >= 0) this.#entries.splice(at, 1);
  }

  shift(): QueuedExecution | undefined {
    return this.#entries.shift();
  }

  /** Everything, in order, emptying the queue. */
  drain(): QueuedExecution[] {
    return this.#entries.splice(0);
  }

  toJSON(): QueuedExecution[] {
    return [...this.#entries];
  }
}
