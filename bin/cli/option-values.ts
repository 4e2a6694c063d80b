// Parsers for option values the CLI can check itself, so a value the engine
// would refuse is a usage error (exit 2, nothing sent) whose message lists
// what is accepted — as the CLI reference promises for invalid option values.
import { InvalidArgumentError } from 'commander';

/** A repeatable, comma-separated option of names from `allowed` (any case), upper-cased. */
export function namesFrom(allowed: readonly string[]): (raw: string, previous: string[]) => string[] {
  return (raw, previous) => {
    const given = raw
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    const unknown = given.filter((name) => !allowed.includes(name.toUpperCase()));
    if (given.length === 0 || unknown.length > 0)
      throw new InvalidArgumentError(
        `${unknown.map((name) => JSON.stringify(name)).join(', ') || 'nothing'} is not one of ${allowed.join(', ')}`,
      );
    return [...previous, ...given.map((name) => name.toUpperCase())];
  };
}

/** One of `allowed` (kebab-case names; any case, `_` or a space for `-`), passed on as given. */
export function oneOf(allowed: readonly string[]): (raw: string) => string {
  return (raw) => {
    if (!allowed.includes(raw.trim().toLowerCase().replace(/[_ ]/g, '-')))
      throw new InvalidArgumentError(`${JSON.stringify(raw)} is not one of ${allowed.join(', ')}`);
    return raw;
  };
}

/** A whole number from 1 up. */
export function positiveInt(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError('a positive integer');
  return value;
}

/** A whole number in min..max. */
export function wholeNumberIn(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || value < min || value > max)
      throw new InvalidArgumentError(`a whole number in ${min}..${max}`);
    return value;
  };
}

/** An ISO 8601 timestamp (`--expires-at`), as a Date. */
export function isoTimestamp(value: string): Date {
  // Date.parse accepts far more than ISO 8601; insist on a date at least.
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw new InvalidArgumentError('expected an ISO 8601 timestamp such as 2026-12-31T23:59:59Z');
  return date;
}

/** Comma-separated entries, blanks dropped (`--allowed-host`, `company egress set`). */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** A repeatable option whose values may be comma-separated too. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...splitList(value)];
}

/** A repeatable option, one value each time. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
