// What every gate does the same way with a long queue (gate-queue.ts): a full
// tail becomes a page, a workflow that keeps its entries in Temporal; the
// oldest page is asked back when the head runs low, and asked again if it has
// not answered within a minute. A page that is gone is dropped: its
// executions ask their gate again by their own deadlines (admission.ts).
import { getExternalWorkflowHandle, log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { FlowActivities } from '../activities/index.ts';
import { gatePageTakeSignal } from '../../flow/flow-control-messages.ts';
import type { GateQueue } from './gate-queue.ts';

/** How long a page may take to answer before it is asked again. */
export const PAGE_ANSWER_MS = 60_000;

const { startGatePage } = proxyLocalActivities<FlowActivities>({
  startToCloseTimeout: '60s',
  retry: { maximumInterval: '30s' },
});

export class GatePaging {
  readonly #queue: GateQueue;
  readonly #summary: string;
  /** When the page being taken was asked (workflow time); a new run asks again. */
  #askedAt: number | undefined;

  constructor(queue: GateQueue, summary: string) {
    this.#queue = queue;
    this.#summary = summary;
  }

  /** Whether there is paging to do now. */
  get due(): boolean {
    const queue = this.#queue;
    if (queue.spillDue || queue.takeDue) return true;
    return queue.taking !== undefined && (this.#askedAt === undefined || this.#askedAt + PAGE_ANSWER_MS <= Date.now());
  }

  /** When to look again for a page that has not answered (ms from now), if one is being taken. */
  get recheckInMs(): number | undefined {
    if (this.#queue.taking === undefined) return undefined;
    return Math.max(1, (this.#askedAt ?? 0) + PAGE_ANSWER_MS - Date.now());
  }

  /** Does what is due: writes pages for a full tail, asks for the oldest page. */
  async run(): Promise<void> {
    const { workflowId: coordinatorId, taskQueue } = workflowInfo();
    for (let spilled = this.#queue.spill(); spilled; spilled = this.#queue.spill()) {
      await startGatePage({
        pageId: spilled.page.id,
        taskQueue,
        summary: `waiting executions · ${this.#summary}`,
        page: { coordinatorId, entries: spilled.entries },
      });
    }
    const page = this.#queue.pageToTake()?.id ?? (this.due ? this.#queue.taking : undefined);
    if (page === undefined) return;
    this.#askedAt = Date.now();
    try {
      await getExternalWorkflowHandle(page).signal(gatePageTakeSignal);
    } catch {
      const dropped = this.#queue.dropTaken();
      if (dropped)
        log.warn('a page of waiting executions is gone; they ask their gate again by their deadlines', {
          page: dropped.id,
          entries: dropped.count,
        });
    }
  }
}
