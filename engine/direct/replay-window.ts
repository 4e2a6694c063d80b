// FLOWHOOK_HOOK_REPLAY_WINDOW: how long the engines remember a delivery accepted on a provider
// route whose signature covers no timestamp (github, shopify, hmac without {timestamp}). Nothing in
// such a request tells a replay from a new event, so for this long a replay joins the first
// execution (or is refused once Temporal no longer keeps it) instead of starting another; after
// it, and after Temporal's retention, the same signed bytes are a new delivery again. Longer is
// safer: the default outlasts common namespace retentions (1 day on the dev server, 3 by the CLI's
// default), and the floor keeps every genuine redelivery a join — GitHub redelivers deliveries of
// the past 3 days on request, Shopify retries for 4 hours. Rows are small (a digest and a time).
import { readRetention } from '../housekeeping/retention-setting.ts';

export const REPLAY_WINDOW_SETTING = 'FLOWHOOK_HOOK_REPLAY_WINDOW';
export const DEFAULT_REPLAY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
export const MIN_REPLAY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;

export function readReplayWindow(env: Record<string, string | undefined>): number {
  return readRetention(env, {
    name: REPLAY_WINDOW_SETTING,
    defaultMs: DEFAULT_REPLAY_WINDOW_MS,
    minMs: MIN_REPLAY_WINDOW_MS,
    why: "a provider's redelivery must join the first execution, not start another",
  });
}
