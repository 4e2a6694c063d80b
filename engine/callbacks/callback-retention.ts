// FLOWHOOK_CALLBACK_RETENTION: how long a callback_wait row that can no longer change an answer
// is kept (callback-wait-purge.ts says which rows those are). A used row answers a retried
// delivery of the same body with the first answer; senders retry for minutes to a few days, so
// the default is generous and the floor keeps a misconfiguration from turning a retry within the
// hour into a 404.
import { readRetention } from '../housekeeping/retention-setting.ts';

export const CALLBACK_RETENTION_SETTING = 'FLOWHOOK_CALLBACK_RETENTION';
export const DEFAULT_CALLBACK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const MIN_CALLBACK_RETENTION_MS = 60 * 60 * 1000;

export function readCallbackRetention(env: Record<string, string | undefined>): number {
  return readRetention(env, {
    name: CALLBACK_RETENTION_SETTING,
    defaultMs: DEFAULT_CALLBACK_RETENTION_MS,
    minMs: MIN_CALLBACK_RETENTION_MS,
    why: 'retried callback deliveries are answered from these rows',
  });
}
