// A retention read from the environment: a duration with a floor below which the rows would be
// deleted while something may still need them. One reader for every purge's setting, so they
// parse and refuse alike.
import { parseDuration } from '../../workflows/shared/index.ts';

export interface RetentionSetting {
  name: string;
  defaultMs: number;
  minMs: number;
  /** Why the floor exists, for the refusal message. */
  why: string;
}

export function readRetention(env: Record<string, string | undefined>, setting: RetentionSetting): number {
  const raw = env[setting.name];
  if (raw === undefined || raw === '') return setting.defaultMs;
  const ms = parseDuration(raw);
  if (typeof ms === 'string' || ms < setting.minMs) {
    throw new Error(`${setting.name} must be a duration of at least ${formatFloor(setting.minMs)} such as 30d (${setting.why}), got "${raw}"`);
  }
  return ms;
}

function formatFloor(ms: number): string {
  const hours = ms / 3_600_000;
  return Number.isInteger(hours / 24) ? `${hours / 24}d` : Number.isInteger(hours) ? `${hours}h` : `${ms / 60_000}m`;
}
