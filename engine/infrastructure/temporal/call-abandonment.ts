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
//
// It also catches what the retry interceptor cannot: a retry whose backoff
// timer fires after the connection was closed (the engine shutting down while
// a call still waited) finds the channel shut down, and grpc-js throws that
// from inside the timer, where no caller can catch it and the process dies.
// Such an attempt ends as CANCELLED instead, which is not retried.
import { randomUUID } from 'node:crypto';
import { InterceptingCall, Metadata, status, type InterceptingListener, type Interceptor } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';

/** What grpc-js's next call is (its interface is not exported by name). */
type NextAttempt = ReturnType<Parameters<Interceptor>[1]>;

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
  tagged<T>(
    connection: Pick<Connection, 'withMetadata'>,
    call: () => Promise<T>,
  ): { result: Promise<T>; abandon(): void };
}

export function createCallAbandonment(): CallAbandonment {
  const abandoned = new Set<string>();
  /** Attempts in flight per call id, each with the way to refuse it. */
  const attempts = new Map<string, Map<InterceptingCall, () => void>>();
  const unsettled = new Set<Promise<unknown>>();

  const interceptor: Interceptor = (options, nextCall) => {
    // Set once this attempt is cancelled for an abandoned call: its request must then never be sent.
    let refused = false;
    const refuse = () => {
      refused = true;
      attempt.cancelWithStatus(status.CANCELLED, 'abandoned by the engine');
    };
    const attempt: InterceptingCall = new InterceptingCall(
      nextOrClosed(() => nextCall(options)),
      {
        start(metadata, listener, next) {
          const id = metadata.get(CALL_ID_HEADER)[0];
          if (typeof id !== 'string') return next(metadata, listener);
          // The tag is the engine's own business: Temporal never sees it.
          const forwarded = metadata.clone();
          forwarded.remove(CALL_ID_HEADER);
          const tracked = attempts.get(id) ?? new Map<InterceptingCall, () => void>();
          attempts.set(id, tracked);
          tracked.set(attempt, refuse);
          // A partial listener: grpc-js passes everything else on to the caller's listener unchanged.
          next(forwarded, {
            onReceiveStatus(received, nextStatus) {
              tracked.delete(attempt);
              if (tracked.size === 0) attempts.delete(id);
              nextStatus(received);
            },
          });
          if (abandoned.has(id)) refuse();
        },
        // The retry interceptor sends the request after start(): a refused attempt drops it, so a
        // retry started after the abandon reaches Temporal with nothing to execute.
        sendMessage(message, next) {
          if (!refused) next(message);
        },
        halfClose(next) {
          if (!refused) next();
        },
      },
    );
    return attempt;
  };

  return {
    interceptor,
    async settled(timeoutMs) {
      if (unsettled.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...unsettled]),
        new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
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
          for (const refuse of attempts.get(id)?.values() ?? []) refuse();
        },
      };
    },
  };
}

/** The next call, or — the channel already shut down — one that ends CANCELLED as soon as it starts. */
function nextOrClosed(next: () => NextAttempt): NextAttempt {
  try {
    return next();
  } catch (error) {
    const details = `the Temporal connection is closed (${error instanceof Error ? error.message : String(error)})`;
    let ended = false;
    const end = (listener?: Partial<InterceptingListener>) => {
      if (ended) return;
      ended = true;
      queueMicrotask(() => listener?.onReceiveStatus?.({ code: status.CANCELLED, details, metadata: new Metadata() }));
    };
    return {
      start: (_metadata: Metadata, listener?: Partial<InterceptingListener>) => end(listener),
      cancelWithStatus: () => undefined,
      getPeer: () => '',
      sendMessageWithContext: () => undefined,
      sendMessage: () => undefined,
      startRead: () => undefined,
      halfClose: () => undefined,
      getAuthContext: () => null,
    };
  }
}
