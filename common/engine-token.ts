// The service account token a facade or worker presents to the engine: from
// FLOWHOOK_ENGINE_TOKEN, or from the file FLOWHOOK_ENGINE_TOKEN_FILE names
// (which must be readable by its owner only, like an SSH key — a token in a
// world-readable file is a token anyone on the host can use).
import { readFileSync, statSync } from 'node:fs';
import type { Env } from './env-values.ts';

export function readEngineToken(env: Env, processName: string): string {
  const inline = env.FLOWHOOK_ENGINE_TOKEN;
  const file = env.FLOWHOOK_ENGINE_TOKEN_FILE;
  if (inline && file) throw new Error('set FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE, not both');
  refuseSharedServiceToken(env, `the ${processName} calls the engine with its own service account token in FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE (create one with: flowhook service-account create <name> --scope ${processName === 'worker' ? 'records' : 'invoke --all-companies --forwards-callers'})`);
  const token = inline || (file ? readTokenFile(file) : '');
  if (!token) {
    throw new Error(`the ${processName} needs its service account token in FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE (\`flowhook start\` makes one; otherwise: flowhook service-account create <name> --scope ${processName === 'worker' ? 'records' : 'invoke --all-companies --forwards-callers'})`);
  }
  if (token.length < 16) throw new Error('FLOWHOOK_ENGINE_TOKEN must have at least 16 characters');
  return token;
}

/**
 * Earlier releases shared one FLOWHOOK_SERVICE_TOKEN between facade, workers
 * and engine; it could claim any caller. A deployment that still sets it
 * should learn that it no longer protects anything, not run as if it did.
 */
export function refuseSharedServiceToken(env: Env, instead: string): void {
  if (env.FLOWHOOK_SERVICE_TOKEN) throw new Error(`FLOWHOOK_SERVICE_TOKEN is no longer read: ${instead}; unset it`);
}

/** The variables that hand one process its token (flowhook start runs several processes from one environment). */
export function engineTokenVariables(token: string): Env {
  return { FLOWHOOK_ENGINE_TOKEN: token, FLOWHOOK_ENGINE_TOKEN_FILE: undefined };
}

function readTokenFile(path: string): string {
  let mode: number;
  let text: string;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`FLOWHOOK_ENGINE_TOKEN_FILE ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if ((mode & 0o077) !== 0) throw new Error(`FLOWHOOK_ENGINE_TOKEN_FILE ${path} is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`);
  return text.trim();
}
