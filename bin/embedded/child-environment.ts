// The environment our server children (embedded PostgreSQL, the Temporal dev
// server and official server, initdb, the CLI probes) start with: an allow-list,
// not a copy of ours. Our own environment holds FLOWHOOK_* tokens and keys,
// database URLs, PGPASSWORD, cloud credentials: a child needs none of them,
// and anything in a child's environment can be read from /proc/<pid>/environ
// by whoever may read that process (and ends up in its core dumps).

/** What a program needs to find its tools, its home, its locale and its time zone; nothing else. */
const PASSED_ON = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'SYSTEMROOT'];

/**
 * The allow-listed variables of `from` (LC_* included), plus `extra`, which
 * the caller sets for this child's own sake (e.g. LC_MESSAGES=C for PostgreSQL).
 */
export function childEnvironment(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && (PASSED_ON.includes(name) || name.startsWith('LC_'))) env[name] = value;
  }
  return { ...env, ...extra };
}
