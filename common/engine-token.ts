// The service account token a facade or worker presents to the engine: from
// FLOWHOOK_ENGINE_TOKEN, or from the file FLOWHOOK_ENGINE_TOKEN_FILE names
// (which must be readable by its owner only, like an SSH key — a token in a
// world-readable file is a token anyone on the host can use).
import { readFileSync, statSync } from 'node:fs';
import type { SettingValues } from './configuration/configuration-table.ts';
import { parseSetting, type Env } from './configuration/read-settings.ts';

export type EngineTokenSettings = Partial<SettingValues<'FLOWHOOK_ENGINE_TOKEN' | 'FLOWHOOK_ENGINE_TOKEN_FILE'>>;

export function readEngineToken(settings: EngineTokenSettings, processName: string): string {
  const inline = settings.FLOWHOOK_ENGINE_TOKEN;
  const file = settings.FLOWHOOK_ENGINE_TOKEN_FILE;
  if (inline && file) throw new Error('set FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE, not both');
  // A token from the file is held to the same rule as one in the variable.
  const token = inline || (file ? (parseSetting('FLOWHOOK_ENGINE_TOKEN', readTokenFile(file)) as string) : '');
  if (!token) {
    throw new Error(
      `the ${processName} needs its service account token in FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE (\`flowhook start\` makes one; otherwise: flowhook service-account create <name> --scope ${processName === 'worker' ? 'records' : 'invoke --all-companies --forwards-callers'})`,
    );
  }
  return token;
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
    throw new Error(
      `FLOWHOOK_ENGINE_TOKEN_FILE ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if ((mode & 0o077) !== 0)
    throw new Error(
      `FLOWHOOK_ENGINE_TOKEN_FILE ${path} is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  return text.trim();
}
