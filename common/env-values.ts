// Reading single values from the environment, shared by the processes'
// configuration modules: a wrong value stops the process with a message
// naming the variable.

export type Env = Record<string, string | undefined>;

/** `true` or `false` (any case); unset or empty is false. */
export function readBool(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}
