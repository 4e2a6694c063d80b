// "Is this dev server ready for us?" asked the way an operator would, with the
// CLI itself: the frontend answers, the namespace exists, and the search
// attributes we registered are listed. An open TCP port alone is not enough;
// the frontend accepts connections before the namespace and attributes exist.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { childEnvironment } from './child-environment.ts';

const run = promisify(execFile);

export type ProbeResult = { ready: true } | { ready: false; why: string };

export async function probeDevServer(
  cliPath: string,
  address: string,
  namespace: string,
  searchAttributes: string[],
): Promise<ProbeResult> {
  let stdout: string;
  try {
    ({ stdout } = await run(
      cliPath,
      ['operator', 'search-attribute', 'list', '--address', address, '--namespace', namespace, '--output', 'json'],
      {
        timeout: 10_000,
        env: childEnvironment(),
        maxBuffer: 4 * 1024 * 1024,
      },
    ));
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    return { ready: false, why: (failure.stderr?.trim() || failure.message).split('\n').slice(-2).join(' ') };
  }
  const listed = customAttributeNames(stdout);
  const missing = searchAttributes.filter((name) => !listed.has(name));
  return missing.length
    ? { ready: false, why: `search attributes not registered yet: ${missing.join(', ')}` }
    : { ready: true };
}

function customAttributeNames(json: string): Set<string> {
  try {
    const parsed = JSON.parse(json) as { customAttributes?: Record<string, unknown> };
    return new Set(Object.keys(parsed.customAttributes ?? {}));
  } catch {
    return new Set();
  }
}
