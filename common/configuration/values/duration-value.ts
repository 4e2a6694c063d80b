// A duration, spelled as in flow files (`90d`, `1h30m`, `250ms`), in milliseconds, within
// bounds. `off` is a value of its own where a row allows it (a retention that keeps everything).
import { formatDuration, parseDuration } from '../../duration.ts';
import { ValueError, type ValueType } from './value-type.ts';

export interface DurationOptions {
  min?: number;
  max?: number;
}

export function duration(options?: DurationOptions): ValueType<number>;
export function duration(options: DurationOptions & { off: true }): ValueType<number | 'off'>;
export function duration(options: DurationOptions & { off?: boolean } = {}): ValueType<number | 'off'> {
  const { min = 1, max, off } = options;
  const range =
    max !== undefined
      ? ` from ${formatDuration(min)} to ${formatDuration(max)}`
      : min > 1
        ? ` of at least ${formatDuration(min)}`
        : '';
  const expected = `must be ${off ? 'off or ' : ''}a duration${range} such as 30d, 12h or 90m`;
  const bounds =
    max !== undefined ? ` ${formatDuration(min)}..${formatDuration(max)}` : min > 1 ? ` ≥ ${formatDuration(min)}` : '';
  return {
    description: `${off ? 'off or ' : ''}duration${bounds}`,
    parse(text) {
      if (off && text.toLowerCase() === 'off') return 'off';
      const ms = parseDuration(text);
      if (typeof ms === 'string' || ms < min || (max !== undefined && ms > max)) throw new ValueError(expected);
      return ms;
    },
    format: (value) => (value === 'off' ? 'off' : formatDuration(value)),
  };
}
