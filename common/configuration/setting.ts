// One row of the configuration table: an environment variable, who reads it, its type (with
// its bounds), its default, whether it is a secret, and what it means. Everything else —
// parsing at start, the refusal messages, `--help`'s environment lists and the configuration
// reference — is derived from the rows (configuration-table.ts lists them all).
import type { ValueType } from './values/value-type.ts';

/** The readers of the environment: the long-running processes and the CLI's own commands. */
export const PROCESSES = ['engine', 'facade', 'worker', 'start', 'cli', 'payload-key'] as const;
export type ProcessName = (typeof PROCESSES)[number];

/** What each reader is, in the reference's "read by" column and `--help`. */
export const PROCESS_TITLES: Readonly<Record<ProcessName, string>> = {
  engine: 'engine',
  facade: 'facade',
  worker: 'worker',
  start: 'start',
  cli: 'admin commands',
  'payload-key': 'payload-key rotate',
};

export interface SettingSpec<T, P extends ProcessName> {
  type: ValueType<T>;
  processes: readonly P[];
  /** What it means, in one line. */
  meaning: string;
  /** Applied when the variable is unset or empty; leave out when there is none or it is computed. */
  default?: NoInfer<T>;
  /** The default in words, when it is computed or one process has its own. */
  defaultText?: string;
  /** Never quoted in a message (tokens, keys, URLs with a password). */
  secret?: boolean;
  /** Why the bounds are what they are: said with every refusal. */
  why?: string;
  /** What one reader does with it, where that is not the meaning (its `--help` says this instead). */
  roles?: Partial<Record<P, string>>;
  /** More for the reference than one line holds. */
  more?: string;
  /**
   * Read by bin/flowhook before any TypeScript loads (it sets up how the rest loads), straight
   * from the environment and not through this table's parser: only its documented words count.
   */
  launcher?: true;
  /** Set by flowhook for itself: in the reference, never in `--help`. */
  internal?: true;
  /** No longer read: a process that finds it set stops with this note on what replaced it. */
  retired?: string;
}

export interface Setting<V, P extends ProcessName, C extends P = never> extends SettingSpec<unknown, P> {
  /** Readers that work out their own default: for them an unset variable reads as undefined. */
  computedBy?: readonly C[];
  /** The group it is listed under in the reference. */
  group: string;
  /**
   * Type-level only: what code reads from it (undefined included when it has no default), and
   * the readers for which it has no default since they compute theirs.
   */
  readonly reads?: () => { value: V; computedFor: C };
}

export type AnySetting = Setting<unknown, ProcessName, ProcessName>;

/** A row with a default reads as its type (except for the readers that compute their own); without one, as its type or undefined. */
export function setting<T, P extends ProcessName, C extends P>(
  spec: SettingSpec<T, P> & { default: NoInfer<T>; computedBy: readonly C[] },
): Setting<T, P, C>;
export function setting<T, P extends ProcessName>(spec: SettingSpec<T, P> & { default: NoInfer<T> }): Setting<T, P>;
export function setting<T, P extends ProcessName>(spec: SettingSpec<T, P>): Setting<T | undefined, P>;
export function setting<T, P extends ProcessName>(spec: SettingSpec<T, P>): Setting<T | undefined, P, P> {
  return { ...spec, type: spec.type as ValueType<unknown>, group: '' };
}

/** The rows of one reference section, in the order they are listed. */
export function settingsGroup<const R extends Record<string, AnySetting>>(title: string, rows: R): R {
  for (const row of Object.values(rows)) row.group = title;
  return rows;
}
