// The executions waiting at a gate, in arrival order, with a bounded part in
// the coordinator's own state and the rest in pages kept in Temporal: a gate
// may hold a hundred thousand waiting executions, but what it carries into
// continue-as-new stays far below Temporal's 2 MiB payloads (GATE_LIMITS).
//
// The order is head < pages < tail. Arrivals go to the head while nothing
// waits behind it in pages or the tail, and to the tail otherwise; a full tail
// becomes a page (a workflow that keeps its entries, gate-pages.ts); the
// oldest page comes back into the head when the head runs low. Arrival is
// O(1) for calls that come in order (an insertion from the end, by the time
// the call was accepted: two calls accepted a few milliseconds apart may ask
// in either order), and an execution is known once while it waits in memory.
// Pure: the coordinator workflows do the paging's I/O.
import {
  GATE_LIMITS,
  type GatePageRef,
  type GateQueueCarry,
  type QueuedExecution,
} from '../../flow/flow-control-contract.ts';

type Place = 'head' | 'tail';

export class GateQueue {
  readonly #pagePrefix: string;
  /** The head is #head from #start on: shifting moves #start, so it costs nothing. */
  #head: QueuedExecution[];
  #start = 0;
  #tail: QueuedExecution[];
  #pages: GatePageRef[];
  #taking: string | undefined;
  #nextPage: number;
  readonly #where = new Map<string, Place>();
  #headBytes = 0;
  #tailBytes = 0;
  #paged: number;

  constructor(coordinatorId: string, carry?: GateQueueCarry) {
    this.#pagePrefix = `${coordinatorId}/page-`;
    this.#head = [...(carry?.head ?? [])];
    this.#tail = [...(carry?.tail ?? [])];
    this.#pages = [...(carry?.pages ?? [])];
    this.#taking = carry?.taking;
    this.#nextPage = carry?.nextPage ?? 1;
    this.#paged = this.#pages.reduce((sum, page) => sum + page.count, 0);
    for (const entry of this.#head) {
      this.#where.set(entry.executionId, 'head');
      this.#headBytes += bytesOf(entry);
    }
    for (const entry of this.#tail) {
      this.#where.set(entry.executionId, 'tail');
      this.#tailBytes += bytesOf(entry);
    }
  }

  /** Every execution waiting here, in memory and in pages. */
  get waiting(): number {
    return this.headLength + this.#tail.length + this.#paged;
  }

  get headLength(): number {
    return this.#head.length - this.#start;
  }

  get pages(): readonly GatePageRef[] {
    return this.#pages;
  }

  /** The page asked for its entries, if any. */
  get taking(): string | undefined {
    return this.#taking;
  }

  /** Whether the execution waits here in memory (one that waits in a page is not known until it comes back). */
  has(executionId: string): boolean {
    return this.#where.has(executionId);
  }

  /** Places the execution by its arrival; false when it waits here already. */
  add(entry: QueuedExecution): boolean {
    if (this.#where.has(entry.executionId)) return false;
    const bytes = bytesOf(entry);
    const toHead =
      this.#pages.length === 0 &&
      this.#tail.length === 0 &&
      this.headLength < GATE_LIMITS.headWaiters &&
      this.#headBytes + bytes <= GATE_LIMITS.headBytes;
    if (toHead) {
      insertByArrival(this.#head, entry, this.#start);
      this.#headBytes += bytes;
    } else {
      insertByArrival(this.#tail, entry, 0);
      this.#tailBytes += bytes;
    }
    this.#where.set(entry.executionId, toHead ? 'head' : 'tail');
    return true;
  }

  /** Takes the execution out (it no longer waits); false when it is not here in memory. */
  remove(executionId: string): boolean {
    const place = this.#where.get(executionId);
    if (!place) return false;
    const list = place === 'head' ? this.#head : this.#tail;
    const at = list.findIndex(
      (entry, index) => index >= (place === 'head' ? this.#start : 0) && entry.executionId === executionId,
    );
    const [removed] = list.splice(at, 1);
    this.#where.delete(executionId);
    if (place === 'head') this.#headBytes -= bytesOf(removed!);
    else this.#tailBytes -= bytesOf(removed!);
    return true;
  }

  /** The next execution to pass, if one waits in memory. */
  shift(): QueuedExecution | undefined {
    this.#topUpFromTail();
    if (this.headLength === 0) return undefined;
    const entry = this.#head[this.#start]!;
    this.#start += 1;
    this.#where.delete(entry.executionId);
    this.#headBytes -= bytesOf(entry);
    if (this.#start > 1024 && this.#start * 2 > this.#head.length) {
      this.#head = this.#head.slice(this.#start);
      this.#start = 0;
    }
    return entry;
  }

  /**
   * The first `count` waiting in memory, in order. Changes nothing: queries ask it, and a query
   * must not change a workflow's state (it is not in the history a replay follows).
   */
  first(count: number): QueuedExecution[] {
    const head = this.#head.slice(this.#start, this.#start + count);
    // The tail follows the head directly only while no page waits between them.
    const tail = this.#pages.length === 0 ? this.#tail.slice(0, Math.max(0, count - head.length)) : [];
    return [...head, ...tail];
  }

  /** The tail is full: it is to become a page. */
  get spillDue(): boolean {
    return this.#tail.length >= GATE_LIMITS.pageWaiters || this.#tailBytes >= GATE_LIMITS.pageBytes;
  }

  /** The head runs low while pages wait and none is being taken: the oldest is to come back. */
  get takeDue(): boolean {
    if (this.#taking !== undefined || this.#pages.length === 0) return false;
    return this.headLength < GATE_LIMITS.refillBelow && this.#headBytes < GATE_LIMITS.headBytes / 2;
  }

  /** Whether shift() has an execution to give now (not only one in a page still to come back). */
  get ready(): boolean {
    return this.headLength > 0 || (this.#pages.length === 0 && this.#tail.length > 0);
  }

  /** Executions waiting in memory (head and tail). */
  get inMemory(): number {
    return this.headLength + this.#tail.length;
  }

  /**
   * A page to write now, when the tail is full: its entries leave memory and count as waiting in
   * the page from here on (the coordinator starts the page's workflow before anything else).
   */
  spill(): { page: GatePageRef; entries: QueuedExecution[] } | undefined {
    if (!this.spillDue) return undefined;
    const entries = this.#tail.splice(0);
    this.#tailBytes = 0;
    for (const entry of entries) this.#where.delete(entry.executionId);
    const page = { id: `${this.#pagePrefix}${this.#nextPage}`, count: entries.length };
    this.#nextPage += 1;
    this.#pages.push(page);
    this.#paged += page.count;
    return { page, entries };
  }

  /** The oldest page, when the head runs low and no page is being taken: it is being taken from now on. */
  pageToTake(): GatePageRef | undefined {
    if (!this.takeDue) return undefined;
    this.#taking = this.#pages[0]!.id;
    return this.#pages[0];
  }

  /** The page being taken answered: its entries join the head. False for any other page (a repeat): nothing changes. */
  refill(pageId: string, entries: readonly QueuedExecution[]): boolean {
    if (this.#taking !== pageId || this.#pages[0]?.id !== pageId) return false;
    this.#taking = undefined;
    this.#paged -= this.#pages.shift()!.count;
    // Page entries came before everything in the tail; one that also asked again meanwhile keeps its place there.
    for (const entry of entries) {
      if (this.#where.has(entry.executionId)) continue;
      this.#head.push(entry);
      this.#headBytes += bytesOf(entry);
      this.#where.set(entry.executionId, 'head');
    }
    return true;
  }

  /**
   * The page being taken is gone (an operator ended it): its executions no longer wait here. Each
   * asks its gate again by its own deadline (admission.ts), so none is lost — only later.
   */
  dropTaken(): GatePageRef | undefined {
    const at = this.#pages.findIndex((page) => page.id === this.#taking);
    this.#taking = undefined;
    if (at < 0) return undefined;
    const [dropped] = this.#pages.splice(at, 1);
    this.#paged -= dropped!.count;
    return dropped;
  }

  toJSON(): GateQueueCarry {
    return {
      head: this.#head.slice(this.#start),
      tail: [...this.#tail],
      pages: [...this.#pages],
      ...(this.#taking !== undefined && { taking: this.#taking }),
      nextPage: this.#nextPage,
    };
  }

  /** With no pages, the tail follows the head directly: it moves up while the head runs low. */
  #topUpFromTail(): void {
    if (this.#pages.length > 0 || this.#tail.length === 0 || this.headLength >= GATE_LIMITS.refillBelow) return;
    while (
      this.#tail.length > 0 &&
      this.headLength < GATE_LIMITS.headWaiters &&
      this.#headBytes < GATE_LIMITS.headBytes
    ) {
      const entry = this.#tail.shift()!;
      const bytes = bytesOf(entry);
      this.#tailBytes -= bytes;
      this.#head.push(entry);
      this.#headBytes += bytes;
      this.#where.set(entry.executionId, 'head');
    }
  }
}

/** Inserts after every entry that arrived before it or at the same time; from the end, as calls mostly come in order. */
function insertByArrival(list: QueuedExecution[], entry: QueuedExecution, from: number): void {
  let at = list.length;
  while (at > from && list[at - 1]!.arrivedAt > entry.arrivedAt) at -= 1;
  if (at === list.length) list.push(entry);
  else list.splice(at, 0, entry);
}

/** An entry's share of what the coordinator carries (its JSON text). */
function bytesOf(entry: QueuedExecution): number {
  return JSON.stringify(entry).length;
}
