// podman as the container lane drives it: containers of the image started, killed, restarted,
// inspected and asked to run its health check, and one-shot CLI commands run from the image.
// Secrets reach a container through podman's own environment (`-e NAME` without a value), never
// on a command line. The machine-specific flags (runc, cgroupfs, ulimits, host network) are not
// here but in deploy/ci/containers.conf, which the lane names in CONTAINERS_CONF.
import { execFile } from 'node:child_process';

export interface PodmanRun {
  code: number;
  out: string;
  err: string;
}

/**
 * podman cannot schedule a HEALTHCHECK's periodic runs without systemd (it says so on every
 * start and removal); the lane runs the checks itself with `podman healthcheck run`.
 */
const SYSTEMD_TIMER_NOISE = /^.*unable to get systemd connection to (add|start|remove) healthchecks.*\n?/gm;

export function podman(args: readonly string[], env: Record<string, string> = {}): Promise<PodmanRun> {
  return new Promise((resolve, reject) => {
    execFile(
      'podman',
      args,
      { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 5 * 60_000 },
      (error, out, err) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && code === -1) return reject(error);
        resolve({ code, out, err: err.replace(SYSTEMD_TIMER_NOISE, '') });
      },
    );
  });
}

/** podman, failing with what it printed when it fails. */
export async function podmanOk(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const run = await podman(args, env);
  if (run.code !== 0)
    throw new Error(`podman ${args.slice(0, 3).join(' ')} … exited ${run.code}: ${(run.err || run.out).trim()}`);
  return run.out;
}

function volumeFlags(volumes: readonly string[]): string[] {
  return volumes.flatMap((volume) => ['-v', volume]);
}

/** `-e NAME` for each variable: podman takes the values from its own environment. */
function envFlags(env: Record<string, string>): string[] {
  return Object.keys(env).flatMap((name) => ['-e', name]);
}

/** Starts a long-running role of the image, detached, with a read-only root filesystem. */
export async function startRole(
  image: string,
  name: string,
  role: string,
  env: Record<string, string>,
  volumes: readonly string[] = [],
): Promise<void> {
  await podmanOk(
    ['run', '-d', '--name', name, '--read-only', ...volumeFlags(volumes), ...envFlags(env), image, role],
    env,
  );
}

/** A one-shot `flowhook …` from the image (the CLI): what it printed and its exit code. */
export function cli(
  image: string,
  env: Record<string, string>,
  args: readonly string[],
  volumes: readonly string[] = [],
): Promise<PodmanRun> {
  return podman(['run', '--rm', '--read-only', ...volumeFlags(volumes), ...envFlags(env), image, ...args], env);
}

/** Runs the image's HEALTHCHECK in the container now: true when it passes. */
export async function healthy(name: string): Promise<boolean> {
  return (await podman(['healthcheck', 'run', name])).code === 0;
}

/** Runs a command in the running container (no shell: argv as given). */
export function exec(name: string, args: readonly string[]): Promise<PodmanRun> {
  return podman(['exec', name, ...args]);
}

export async function inspect(name: string, format: string): Promise<string> {
  return (await podmanOk(['inspect', '--format', format, name])).trim();
}

export async function logs(name: string, lines = 60): Promise<string> {
  const run = await podman(['logs', '--tail', String(lines), name]);
  return `${run.out}${run.err}`;
}

export async function remove(names: readonly string[]): Promise<void> {
  if (names.length > 0) await podman(['rm', '--force', '--volumes', '--time', '10', ...names]);
}
