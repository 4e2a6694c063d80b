// The replay window of the schemes that sign a timestamp. Symmetric: a
// timestamp too far in the future is refused like one too old, so a sender's
// (or an attacker's) clock cannot stretch the window. The text is parsed
// strictly because the same text is what the signature covers.
import type { DirectRoute } from '../../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { MAX_DIRECT_TOLERANCE_SECONDS } from '../../../../flow/direct-route.ts';
import type { DirectRefusal } from './verification-types.ts';

/** Five minutes, as Stripe, Slack and Standard Webhooks recommend. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The bounds publish validation enforces on `toleranceSeconds` (flow/direct-route.ts). */
export const MIN_TOLERANCE_SECONDS = 1;
export const MAX_TOLERANCE_SECONDS = MAX_DIRECT_TOLERANCE_SECONDS;

/** Twelve digits reach the year 33658; longer is no Unix timestamp in seconds. */
const MAX_TIMESTAMP_DIGITS = 12;

/** The route's tolerance; outside the published bounds (only a hand-built route can be) the default applies. */
export function toleranceOf(route: DirectRoute): number {
  const seconds = route.toleranceSeconds;
  if (
    seconds === undefined ||
    !Number.isInteger(seconds) ||
    seconds < MIN_TOLERANCE_SECONDS ||
    seconds > MAX_TOLERANCE_SECONDS
  ) {
    return DEFAULT_TOLERANCE_SECONDS;
  }
  return seconds;
}

/** Unix seconds written as plain digits (no sign, no fraction, no spaces), or undefined. */
export function parseUnixSeconds(text: string): number | undefined {
  if (text.length === 0 || text.length > MAX_TIMESTAMP_DIGITS) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/** Why a signed timestamp is refused, or undefined when it is inside the window (bounds included). */
export function timestampRefusal(text: string, nowMs: number, toleranceSeconds: number): DirectRefusal | undefined {
  const seconds = parseUnixSeconds(text);
  if (seconds === undefined) return 'malformed_header';
  const nowSeconds = Math.floor(nowMs / 1000);
  return Math.abs(nowSeconds - seconds) > toleranceSeconds ? 'stale_timestamp' : undefined;
}
