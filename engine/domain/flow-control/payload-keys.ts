// `idempotencyKey` + `idempotencyWindow`: a key computed from the payload (a
// provider's event id) makes the execution id deterministic, like an
// Idempotency-Key header — through the same machinery (webhook/idempotency.ts,
// the starter's join and replay) — but only for the window. Temporal keeps no
// "for how long" on an id, so the window is in the id: time is cut into
// windows, and a call takes the previous window's id when that execution
// started less than a window ago, otherwise the current window's. So a repeat
// within the window always finds the first execution, and one after it starts
// a new one. The cost is one describe per keyed call.
import { idempotentExecutionId } from './idempotency.ts';

export interface PayloadKeyedCall {
  company: string;
  caller: string;
  activity: string;
  key: string;
  windowMs: number;
}

export async function payloadKeyedExecutionId(
  secret: Buffer,
  startTimeOf: (executionId: string) => Promise<Date | undefined>,
  call: PayloadKeyedCall,
  now = Date.now(),
): Promise<string> {
  const window = Math.floor(now / call.windowMs);
  // The prefix keeps payload keys apart from header keys with the same text.
  const idOf = (index: number) =>
    idempotentExecutionId(secret, { ...call, key: `payload key\n${call.windowMs}\n${index}\n${call.key}` });
  const previous = idOf(window - 1);
  const startedAt = await startTimeOf(previous);
  return startedAt !== undefined && now - startedAt.getTime() < call.windowMs ? previous : idOf(window);
}
