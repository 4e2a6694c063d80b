// Lets the engine give up on a Temporal call for good. The SDK's gRPC retry
// interceptor retries an unreachable server with backoff until the call's
// deadline, and an abort only cancels the attempt in flight, not the retries
// still to come. For a sync call the deadline is the whole sync window: a call
// the engine has already answered 503 could otherwise reach Temporal seconds
// later and start an execution nobody is told about.
//
// This interceptor sits inside the retry interceptor, so it sees every
// attempt. A call tagged with an id (withMetadata) whose id was abandoned has
// its attempts cancelled — the one in flight at once, later ones as they
// start — and the retry interceptor does not retry a cancelled call.
import { randomUUID } from 'node:crypto';
import { InterceptingCall, status, type Interceptor } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';

const CALL_ID_HEADER = 'flowhook-call-id';

export interface CallAbandonment {
  /** Goes into the Temporal connection's interceptors, after the SDK's retry interceptor. */
  interceptor: Interceptor;
  /**
   * Resolves once every abandoned call has settled (or after `timeoutMs`): a retry timer still
   * pending when the connection closes would otherwise fail outside any caller's reach.
   */
  settled(timeoutMs: number): Promise<void>;
  /** Runs `call` tagged with a fresh id; `abandon()` cancels it and every retry it would make. */
  tagged<T>(connection: Pick<Connection, 'withMetadata'>, call: () => Promise<T>): { result: Promise<T>; abandon(): void };
}

export function createCallAbandonment(): CallAbandonment {
  const abandoned = new Set<string>();
  const attempts = new Map<string, Set<InterceptingCall>>();
  const unsettled = new Set<Promise<unknown>>();

  const interceptor: Interceptor = (options, nextCall) => {
    let id: string | undefined;
    const attempt: InterceptingCall = new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const value = metadata.get(CALL_ID_HEADER)[0];
        if (typeof value !== 'string') return next(metadata, listener);
        id = value;
        // The tag is the engine's own business: Temporal never sees it.
        const forwarded = metadata.clone();
        forwarded.remove(CALL_ID_HEADER);
        const tracked = attempts.get(id) ?? new Set();
        attempts.set(id, tracked);
        tracked.add(attempt);
        // A partial listener: grpc-js passes everything else on to the caller's listener unchanged.
        next(forwarded, {
          onReceiveStatus(received, nextStatus) {
            tracked.delete(attempt);
            if (tracked.size === 0) attempts.delete(value);
            nextStatus(received);
          },
        });
        if (abandoned.has(id)) attempt.cancelWithStatus(status.CANCELLED, 'abandoned by the engine');
      },
    });
    return attempt;
  };

  return {
    interceptor,
    async settled(timeoutMs) {
      if (unsettled.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...unsettled]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    },
    tagged(connection, call) {
      const id = randomUUID();
      const result = connection.withMetadata({ [CALL_ID_HEADER]: id }, call);
      // Once the call has settled no attempt can follow: forget the id.
      const settled = result.then(
        () => abandoned.delete(id),
        () => abandoned.delete(id),
      );
      return {
        result,
        abandon() {
          abandoned.add(id);
          unsettled.add(settled);
          void settled.then(() => unsettled.delete(settled));
          for (const attempt of attempts.get(id) ?? []) attempt.cancelWithStatus(status.CANCELLED, 'abandoned by the engine');
        },
      };
    },
  };
}
