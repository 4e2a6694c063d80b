// The engine's retention settings (common/configuration/table/retention-settings.ts), read with the
// rest of its configuration: how long each kind of row in PostgreSQL lives, and the schedule's
// interval. The engine that answers a purge applies its own; engines of one deployment share one
// environment, and one that differs (a rolling change) is right again after its restart.
import type { SettingValues } from '../../../common/configuration/configuration-table.ts';
import type { RowRetentions } from './retention-kinds.ts';

export interface RetentionSettings {
  rows: RowRetentions;
  /** FLOWHOOK_CONSOLE_SESSION_TTL: a console session's lifetime (its row goes once it expired). */
  consoleSessionTtlMs: number;
  /** FLOWHOOK_RETENTION_INTERVAL: how often the schedule runs the purge. */
  intervalMs: number;
}

type Names =
  | 'FLOWHOOK_DELIVERY_RETENTION'
  | 'FLOWHOOK_AUDIT_RETENTION'
  | 'FLOWHOOK_HOOK_REPLAY_WINDOW'
  | 'FLOWHOOK_CALLBACK_RETENTION'
  | 'FLOWHOOK_RECORD_WRITE_RETENTION'
  | 'FLOWHOOK_CONSOLE_SESSION_TTL'
  | 'FLOWHOOK_RETENTION_INTERVAL';

export function readRetentionSettings(settings: SettingValues<Names>): RetentionSettings {
  const audit = settings.FLOWHOOK_AUDIT_RETENTION;
  return Object.freeze({
    rows: Object.freeze({
      deliveries: settings.FLOWHOOK_DELIVERY_RETENTION,
      audit: audit === 'off' ? undefined : audit,
      console_sessions: 0 as const,
      idempotency: settings.FLOWHOOK_HOOK_REPLAY_WINDOW,
      callbacks: settings.FLOWHOOK_CALLBACK_RETENTION,
      record_writes: settings.FLOWHOOK_RECORD_WRITE_RETENTION,
    }),
    consoleSessionTtlMs: settings.FLOWHOOK_CONSOLE_SESSION_TTL,
    intervalMs: settings.FLOWHOOK_RETENTION_INTERVAL,
  });
}
