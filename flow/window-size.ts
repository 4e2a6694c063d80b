// How large the execution a debounce or batch window becomes will be, as
// Temporal sees it: its input serialised as JSON (payloads, provider headers
// and the template with the flow's steps), in UTF-8 bytes. A payload text
// travels as a JSON string, so quotes and control characters count twice or
// six times over — a window of 55 quote-heavy 18 KB payloads is 1.9 MiB,
// not 1 MB. Shared by the engine (a call too large for any window is refused
// before it is collected) and the collector (a window never outgrows the cap).
// Pure; sandbox-safe (TextEncoder, no Buffer).
import { COLLECTED_LIMITS } from './flow-control-contract.ts';
import type { DirectTriggerRequest } from './flow-contract.ts';

/** The seed's part of the input (grant, gates) at most, and the JSON around each call. */
const SEED_BYTES = 4096;
const PER_CALL_BYTES = 96;

const encoder = new TextEncoder();

/** UTF-8 bytes of a value's JSON text. */
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? '').length;
}

/** What one call adds to its window's execution input: its payload as a JSON string, its caller, its time and its provider request. */
export function collectedCallBytes(call: {
  payloadJson: string;
  caller: string;
  direct?: DirectTriggerRequest;
}): number {
  return (
    jsonBytes(call.payloadJson) + jsonBytes(call.caller) + (call.direct ? jsonBytes(call.direct) : 0) + PER_CALL_BYTES
  );
}

/**
 * The window's execution input at most: the template, the seed, every call kept, and the latest
 * call once more (its payload is also Trigger.Payload, its headers Trigger's).
 */
export function windowInputBytes(templateBytes: number, callsBytes: number, latestCallBytes: number): number {
  return templateBytes + SEED_BYTES + callsBytes + latestCallBytes;
}

/** Whether a call fits a window of its own: one that does not is refused (413), it could never run. */
export function fitsAlone(templateBytes: number, callBytes: number): boolean {
  return windowInputBytes(templateBytes, callBytes, callBytes) <= COLLECTED_LIMITS.windowBytes;
}
