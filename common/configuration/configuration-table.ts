// Every environment variable flowhook reads, once: the FLOWHOOK_* settings and the Temporal and
// OpenTelemetry variables of those projects that flowhook itself reads. Rows are grouped by topic
// (one module each, in the order of the reference); a variable that is not here is not read —
// test/unit/configuration-table.test.ts scans the source for any that would be.
import type { AnySetting, ProcessName } from './setting.ts';
import { ADDRESS_SETTINGS } from './table/address-settings.ts';
import { ALERT_SETTINGS } from './table/alert-settings.ts';
import { CALLER_SETTINGS } from './table/caller-settings.ts';
import { CODEC_SETTINGS } from './table/codec-settings.ts';
import { CONSOLE_SETTINGS } from './table/console-settings.ts';
import { CREDENTIAL_SETTINGS } from './table/credential-settings.ts';
import { DELIVERY_SETTINGS } from './table/delivery-settings.ts';
import { DEPENDENCY_SETTINGS } from './table/dependency-settings.ts';
import { FLOW_SETTINGS } from './table/flow-settings.ts';
import { LAUNCHER_SETTINGS } from './table/launcher-settings.ts';
import { LIMIT_SETTINGS } from './table/limit-settings.ts';
import { LOCAL_SETTINGS } from './table/local-settings.ts';
import { OBSERVABILITY_SETTINGS } from './table/observability-settings.ts';
import { RETENTION_SETTINGS } from './table/retention-settings.ts';
import { RETIRED_SETTINGS } from './table/retired-settings.ts';
import { TLS_SETTINGS } from './table/tls-settings.ts';
import { WORKER_SETTINGS } from './table/worker-settings.ts';

export const CONFIGURATION_TABLE = {
  ...ADDRESS_SETTINGS,
  ...TLS_SETTINGS,
  ...CREDENTIAL_SETTINGS,
  ...CALLER_SETTINGS,
  ...LIMIT_SETTINGS,
  ...FLOW_SETTINGS,
  ...RETENTION_SETTINGS,
  ...DEPENDENCY_SETTINGS,
  ...WORKER_SETTINGS,
  ...ALERT_SETTINGS,
  ...CODEC_SETTINGS,
  ...CONSOLE_SETTINGS,
  ...OBSERVABILITY_SETTINGS,
  ...DELIVERY_SETTINGS,
  ...LOCAL_SETTINGS,
  ...LAUNCHER_SETTINGS,
  ...RETIRED_SETTINGS,
};

type Table = typeof CONFIGURATION_TABLE;
export type SettingName = keyof Table & string;

type Reads<N extends SettingName> = ReturnType<NonNullable<Table[N]['reads']>>;
type ValueOf<N extends SettingName> = Reads<N>['value'];
type ReadersOf<N extends SettingName> = Table[N]['processes'][number];
type ComputersOf<N extends SettingName> = Reads<N>['computedFor'];

/** The variables one reader reads. */
export type NamesReadBy<P extends ProcessName> = {
  [N in SettingName]: P extends ReadersOf<N> ? N : never;
}[SettingName];

/** What one reader sees: every variable it reads, parsed, with its default applied. */
export type Settings<P extends ProcessName> = {
  readonly [N in NamesReadBy<P>]: P extends ComputersOf<N> ? ValueOf<N> | undefined : ValueOf<N>;
};

/** Some variables, parsed, for a module that needs only those (any reader's settings will do). */
export type SettingValues<N extends SettingName> = { readonly [K in N]: ValueOf<K> };

export function settingRow(name: SettingName): AnySetting {
  return CONFIGURATION_TABLE[name];
}

/** A variable's default, for code that needs it without reading the environment (tests, fallbacks). */
export function defaultOf<N extends SettingName>(name: N): ValueOf<N> {
  return CONFIGURATION_TABLE[name].default as ValueOf<N>;
}
