// A local HTTP server for flow-control tests: it records when each request
// arrived and when it was answered, so a test sees from outside which
// executions' steps ran at the same time. Each request is held until
// `releaseAt` requests are in flight at once (proof that steps can overlap,
// without a timing guess) or `holdMs` has passed, whichever comes first;
// with `holdFirst`, the very first request waits for releaseFirst() instead.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Interval {
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
  /** When the request arrived and when its answer was sent (ms, this process's clock). */
  start: number;
  end?: number;
}

export interface IntervalServer {
  url: string;
  intervals: Interval[];
  /** The most requests ever in flight at once. */
  maxInFlight(): number;
  /** Answers the first request (holdFirst). */
  releaseFirst(): void;
  /** Resolves once `count` requests (whose path starts with `prefix`) were answered. */
  waitForAnswered(count: number, prefix?: string, timeoutMs?: number): Promise<Interval[]>;
  close(): Promise<void>;
}

export async function startIntervalServer(options: {
  holdMs: number;
  releaseAt?: number;
  holdFirst?: boolean;
}): Promise<IntervalServer> {
  const intervals: Interval[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const held = new Set<() => void>();
  const waiters = new Set<() => void>();
  let releaseFirst: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const interval: Interval = {
        path: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
        start: Date.now(),
      };
      intervals.push(interval);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let answered = false;
      const answer = () => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        held.delete(answer);
        interval.end = Date.now();
        inFlight -= 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
        for (const waiter of waiters) waiter();
      };
      const first = options.holdFirst && intervals.length === 1;
      const timer = setTimeout(answer, first ? 120_000 : options.holdMs);
      if (first) releaseFirst = answer;
      else held.add(answer);
      // Enough overlap has been seen: everything held goes.
      if (options.releaseAt !== undefined && inFlight >= options.releaseAt) for (const release of [...held]) release();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    intervals,
    maxInFlight: () => maxInFlight,
    releaseFirst: () => releaseFirst?.(),
    waitForAnswered(count, prefix = '', timeoutMs = 60_000) {
      const done = () => intervals.filter((interval) => interval.end !== undefined && interval.path.startsWith(prefix));
      return new Promise((resolve, reject) => {
        const check = () => {
          const answered = done();
          if (answered.length < count) return;
          cleanup();
          resolve(answered);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `${count} answered requests to ${prefix || '/'}: not within ${timeoutMs} ms; saw ${done().length}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of [...held]) release();
        releaseFirst?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether any two intervals overlap (each taken from its start to its end). */
export function overlapping(intervals: readonly Interval[]): boolean {
  let busyUntil = -Infinity;
  for (const interval of [...intervals].sort((a, b) => a.start - b.start)) {
    if (interval.start < busyUntil) return true;
    busyUntil = Math.max(busyUntil, interval.end ?? Infinity);
  }
  return false;
}
