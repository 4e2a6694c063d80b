// Durations in flow files and settings: one or more <number><unit> groups, e.g.
// "5s", "1m30s", "250ms", "2h", "1d". Shared by publish validation, the
// interpreter, the configuration table and the CLI so all read (and write) a
// duration the same way.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const GROUP = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Milliseconds, or an Error message when the text is not a duration. */
export function parseDuration(text: string): number | string {
  const trimmed = text.trim();
  if (trimmed === '') return 'duration is empty';
  let total = 0;
  GROUP.lastIndex = 0;
  while (GROUP.lastIndex < trimmed.length) {
    const at = GROUP.lastIndex;
    const match = GROUP.exec(trimmed);
    if (!match) return `"${text}" is not a duration (at "${trimmed.slice(at)}"; use e.g. 5s, 1m30s, 250ms, 2h, 1d)`;
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  if (!Number.isFinite(total)) return `"${text}" is too long`;
  return Math.round(total);
}

/** A duration in words a person reads back, e.g. "90d", "5m", "1h30m". */
export function formatDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) {
      text += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return text || '0ms';
}
