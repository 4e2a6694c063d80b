// A port one of flowhook's processes listens on. The worker reads it too, with the same parser,
// to refuse it to flows (flow/egress-policy.ts): a flow's httpRequest step never reaches
// flowhook's own listeners, whatever the egress rules say.
import { setting, type ProcessName, type Setting, type SettingSpec } from '../setting.ts';

/** What the worker does with an own port, as its `--help` and the reference say it unless the row says more. */
const OWN_PORT = "refused to flows (one of flowhook's own ports)";

/** A setting's row, whose roles may say what the worker does with the port. */
type OwnPortSpec<T, P extends ProcessName> = Omit<SettingSpec<T, P>, 'roles'> & {
  roles?: Partial<Record<P | 'worker', string>>;
};

/** The row of an own port: read by the processes it names and, after them, by the worker. */
export function ownPort<T, P extends ProcessName>(
  spec: OwnPortSpec<T, P> & { default: NoInfer<T> },
): Setting<T, P | 'worker'>;
export function ownPort<T, P extends ProcessName>(spec: OwnPortSpec<T, P>): Setting<T | undefined, P | 'worker'>;
export function ownPort<T, P extends ProcessName>(spec: OwnPortSpec<T, P>): Setting<T | undefined, P | 'worker'> {
  const roles: Partial<Record<ProcessName, string>> = { ...spec.roles };
  roles.worker ??= OWN_PORT;
  return setting<T, P | 'worker'>({ ...spec, processes: [...spec.processes, 'worker'], roles });
}
