// Times and durations as the execution pages show them: the person's own
// time zone and locale, durations in the unit that reads best.
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';

export function timeText(value: Timestamp | undefined): string {
  return value ? timestampDate(value).toLocaleString() : '—';
}

/** 850 ms, 3.2 s, 4 min 5 s, 2 h 10 min. */
export function durationText(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function between(start: Timestamp | undefined, end: Timestamp | undefined): number {
  return start && end ? timestampDate(end).getTime() - timestampDate(start).getTime() : NaN;
}

/** An ISO time for a datetime-local input (the person's local time, minutes). */
export function localInputValue(iso: string): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local input's value as an ISO time ('' when empty). */
export function isoFromLocalInput(value: string): string {
  return value ? new Date(value).toISOString() : '';
}
