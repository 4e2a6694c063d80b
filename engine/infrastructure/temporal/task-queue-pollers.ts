// When each worker polling the flow task queue was last seen, from DescribeTaskQueue: the
// readiness probe (health/dependency-probes.ts) and the `no-worker` alert (domain/alerts/)
// both decide "is a worker there" from the same answer.
import type { Client } from '@temporalio/client';

/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW */
const WORKFLOW_TASK_QUEUE = 1;

/**
 * A worker that polls renews its long poll at least once a minute (Temporal answers an idle poll
 * after a minute); Temporal lists a poller for minutes after it stopped. One not seen for longer
 * than this is gone.
 */
export const POLLER_SEEN_WITHIN_MS = 75_000;

export interface PolledQueue {
  namespace: string;
  taskQueue: string;
}

export interface PollerSighting {
  identity: string;
  /** When it last polled (ms since the epoch). */
  lastSeen: number;
}

/** The workers Temporal lists for the queue's workflow tasks, each with when it last polled. */
export async function workflowPollers(
  client: Client,
  queue: PolledQueue,
  timeoutMs: number,
): Promise<PollerSighting[]> {
  const { pollers } = await client.connection.withDeadline(Date.now() + timeoutMs, () =>
    client.workflowService.describeTaskQueue({
      namespace: queue.namespace,
      taskQueue: { name: queue.taskQueue },
      taskQueueType: WORKFLOW_TASK_QUEUE,
    }),
  );
  return pollers.map((poller) => ({ identity: poller.identity ?? '', lastSeen: millisOf(poller.lastAccessTime) }));
}

function millisOf(
  time: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined,
): number {
  if (!time) return 0;
  const seconds = typeof time.seconds === 'number' ? time.seconds : (time.seconds?.toNumber() ?? 0);
  return seconds * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}
