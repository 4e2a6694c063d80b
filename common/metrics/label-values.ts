// Label values that cannot grow without bound. A series exists per distinct
// combination of label values, so a value an outsider can choose (a company
// name in a query, an activity in a body) would let anyone create series until
// Prometheus or this process runs out of memory. Free labels therefore take
// values only from what flowhook itself resolved (a published flow), use the
// fixed placeholder `unknown` when nothing was resolved, and are capped anyway:
// past the cap, new values are counted under `other`.

export const UNKNOWN = 'unknown';
export const OTHER = 'other';

// Company and activity names (and a pair of them) are short; anything longer is not one of ours.
const MAX_VALUE_LENGTH = 256;

/** A closed vocabulary: anything outside it reads `other`. */
export function closedValues<T extends string>(
  allowed: readonly T[],
): (raw: string | undefined) => T | typeof OTHER | typeof UNKNOWN {
  const known = new Set<string>(allowed);
  return (raw) => (raw === undefined || raw === '' ? UNKNOWN : known.has(raw) ? (raw as T) : OTHER);
}

/** The first `max` distinct values are kept as they are; later ones read `other`. */
export class BoundedValues {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  value(raw: string | undefined): string {
    if (raw === undefined || raw === '') return UNKNOWN;
    if (this.#seen.has(raw)) return raw;
    if (this.#seen.size >= this.#max || raw.length > MAX_VALUE_LENGTH) return OTHER;
    this.#seen.add(raw);
    return raw;
  }
}

/**
 * Pairs of free values (a company and an activity or flow) as two labels: the first `max` distinct pairs
 * as they are, later ones `other` in both; a pair with a value missing is `unknown` in both.
 */
export class BoundedPairs {
  readonly #pairs: BoundedValues;

  constructor(max: number) {
    this.#pairs = new BoundedValues(max);
  }

  labels(first: string | undefined, second: string | undefined): [string, string] {
    const pair = first && second ? this.#pairs.value(`${first}\u0000${second}`) : UNKNOWN;
    return pair === UNKNOWN || pair === OTHER ? [pair, pair] : [first!, second!];
  }
}

/**
 * Children of a labelled metric, bound once per combination of values and
 * reused: prom-client's `labels()` builds a label object and hashes it on every
 * call, this looks one string up in a Map. The values must already be bounded.
 */
export class BoundChildren<C> {
  readonly #children = new Map<string, C>();
  readonly #bind: (...values: string[]) => C;

  constructor(bind: (...values: string[]) => C) {
    this.#bind = bind;
  }

  get(...values: string[]): C {
    const key = values.join('\u0000');
    let child = this.#children.get(key);
    if (child === undefined) {
      child = this.#bind(...values);
      this.#children.set(key, child);
    }
    return child;
  }
}

/** A labelled prom-client metric (Counter, Gauge, Histogram) whose children are bound once per combination of values (`get`). */
export class Series<M extends { labels(...values: string[]): unknown }> extends BoundChildren<ReturnType<M['labels']>> {
  readonly metric: M;

  constructor(metric: M) {
    super((...values) => metric.labels(...values) as ReturnType<M['labels']>);
    this.metric = metric;
  }
}

/** Outbound HTTP status as a label: a status code, or `other` for anything that is not one. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : OTHER;
}
