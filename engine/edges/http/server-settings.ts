// Rules the settings of the engine's optional servers (the codec server, the
// console) share: a server is off unless its port is set, and settings that
// configure something switched off are refused rather than ignored.
import type { SettingName, SettingValues } from '../../../common/configuration/configuration-table.ts';

/** The server's port; undefined when `portName` is unset or `off` — and then none of `dependents` (settings of that server) may be set. */
export function serverPort<N extends SettingName>(
  settings: SettingValues<N>,
  portName: N,
  dependents: readonly N[],
  server: string,
): number | undefined {
  const port = settings[portName] as number | 'off' | undefined;
  if (port !== undefined && port !== 'off') return port;
  const stray = setAmong(settings, dependents);
  if (stray.length > 0)
    throw new Error(`${stray.join(' and ')} configure ${server}, which is off: set ${portName} to run it`);
  return undefined;
}

/** Refuses `dependents` set without `required` (`what` says what that is). */
export function refuseWithout<N extends SettingName>(
  settings: SettingValues<N>,
  required: N,
  dependents: readonly N[],
  what: string,
): void {
  const others = setAmong(settings, dependents);
  if (others.length > 0) throw new Error(`${others.join(', ')} need ${required} (${what})`);
}

function setAmong<N extends SettingName>(settings: SettingValues<N>, names: readonly N[]): N[] {
  return names.filter((name) => settings[name] !== undefined);
}
