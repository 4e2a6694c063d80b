// bin/flowhook starts the long-running processes with bounded V8 heaps and two
// malloc arenas by replacing itself once (process.execve: same PID) — unless
// the operator says FLOWHOOK_NODE_HEAP=off or brings settings of their own.
// Checked on a real facade process through the command line and environment
// the kernel reports for its PID.
import { readFileSync } from 'node:fs';
import test from 'ava';
import { withLoneFacade } from '../support/lone-facade.ts';

/** A facade's command line and environment, as the kernel reports them for its PID once it listens. */
function facadeProcess(env: Record<string, string>): Promise<{ commandLine: string; environment: string[] }> {
  return withLoneFacade(env, async ({ pid }) => {
    const read = (file: string) => readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');
    return { commandLine: read('cmdline').join(' '), environment: read('environ') };
  });
}

test("by default the facade runs with flowhook's heap limits and two malloc arenas, under the same PID", async (t) => {
  const { commandLine, environment } = await facadeProcess({});
  t.regex(commandLine, /--max-old-space-size=160 --max-semi-space-size=8 \S*bin\/flowhook facade/);
  t.true(environment.includes('MALLOC_ARENA_MAX=2'));
});

test("FLOWHOOK_NODE_HEAP=off leaves Node's own heap sizing and malloc's arenas", async (t) => {
  const { commandLine, environment } = await facadeProcess({ FLOWHOOK_NODE_HEAP: 'off' });
  t.notRegex(commandLine, /--max-(old|semi)-space-size/);
  t.false(environment.some((variable) => variable.startsWith('MALLOC_ARENA_MAX=')));
});

test("heap flags of the operator's own in NODE_OPTIONS win; the arenas are still limited", async (t) => {
  const { commandLine, environment } = await facadeProcess({ NODE_OPTIONS: '--max-old-space-size=512' });
  t.notRegex(commandLine, /--max-(old|semi)-space-size/);
  t.true(environment.includes('MALLOC_ARENA_MAX=2'));
});

test("the operator's own MALLOC_ARENA_MAX wins", async (t) => {
  const { commandLine, environment } = await facadeProcess({ MALLOC_ARENA_MAX: '4' });
  t.regex(commandLine, /--max-old-space-size=160/);
  t.true(environment.includes('MALLOC_ARENA_MAX=4'));
  t.false(environment.includes('MALLOC_ARENA_MAX=2'));
});
