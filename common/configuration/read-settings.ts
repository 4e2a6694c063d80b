// Where a process hands its environment to the configuration table. Each variable the process
// reads is parsed by its row's type the first time the process's configuration asks for it (so a
// variable a switched-off feature would read is never held against the process), with the row's
// default when it is unset or empty; a retired variable that is set stops the process at once.
// A wrong value throws a ConfigurationError that names the variable and, unless the variable is a
// secret, quotes what it got.
import { CONFIGURATION_TABLE, settingRow, type SettingName, type Settings } from './configuration-table.ts';
import type { AnySetting, ProcessName } from './setting.ts';
import { ValueError } from './values/value-type.ts';

export type Env = Record<string, string | undefined>;

/** A variable with a wrong value; the message names it (and the process should stop). */
export class ConfigurationError extends Error {
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}

/** The variables `reader` reads from `env`, parsed on first use and frozen. */
export function readSettings<P extends ProcessName>(env: Env, reader: P): Settings<P> {
  const settings: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(CONFIGURATION_TABLE) as [SettingName, AnySetting][]) {
    if (!row.processes.includes(reader)) continue;
    const raw = present(env[name]);
    if (row.retired !== undefined && raw !== undefined)
      throw new ConfigurationError(name, `${name} is no longer read: ${row.retired}; unset it`);
    const unset = row.computedBy?.includes(reader) ? undefined : row.default;
    let parsed: { value: unknown } | undefined;
    Object.defineProperty(settings, name, {
      enumerable: true,
      get: () => (parsed ??= { value: raw === undefined ? unset : parseSetting(name, raw) }).value,
    });
  }
  return Object.freeze(settings) as Settings<P>;
}

/**
 * A text read by the variable's type: its value, or the error naming it. Also for text a
 * variable points at (a token in the file FLOWHOOK_ENGINE_TOKEN_FILE names is read as a token).
 */
export function parseSetting(name: SettingName, text: string): unknown {
  const row = settingRow(name);
  try {
    return row.type.parse(text.trim());
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    const why = row.why === undefined ? '' : ` (${row.why})`;
    const got = row.secret ? '' : `, got "${error.quote ?? text}"`;
    throw new ConfigurationError(name, `${name} ${error.message}${why}${got}`);
  }
}

/** Unset and empty (or blank) are the same: the default. */
function present(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed === '' ? undefined : trimmed;
}
