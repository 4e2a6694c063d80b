// How bin/flowhook runs the long-running processes. It reads these itself, before any TypeScript
// loads, so they are not parsed by this table: only `off` is looked at.
import { setting, settingsGroup } from '../setting.ts';
import { choice } from '../values/choice-value.ts';

export const LAUNCHER_SETTINGS = settingsGroup('Process memory', {
  FLOWHOOK_NODE_HEAP: setting({
    type: choice(['on', 'off']),
    default: 'on',
    launcher: true,
    processes: ['engine', 'facade', 'worker', 'start'],
    meaning:
      "`off` runs the process with Node's own heap sizing and glibc's own malloc arenas instead of flowhook's limits",
    more: 'The limits: old space 160 MiB for engine and facade, 256 MiB for a worker, 384 MiB for `start`; semi-space 8 MiB; `MALLOC_ARENA_MAX=2`. Heap flags of your own in `NODE_OPTIONS`, or your own `MALLOC_ARENA_MAX`, win.',
  }),
  FLOWHOOK_COMPILED_JS: setting({
    type: choice(['on', 'off']),
    default: 'on',
    launcher: true,
    processes: ['engine', 'facade', 'worker', 'start', 'cli', 'payload-key'],
    meaning:
      "`off` lets Node strip the TypeScript types of flowhook's modules as they load instead of serving them from the cache in `node_modules/.cache/flowhook-js/`",
    more: '`bin/flowhook` only; ~20–30 MiB more per process (see [performance](../explanation/performance.md#memory)).',
  }),
  FLOWHOOK_HEAP_TUNED: setting({
    type: choice(['1']),
    launcher: true,
    internal: true,
    processes: ['engine', 'facade', 'worker', 'start'],
    meaning: 'set by bin/flowhook on the process it replaces itself with, so it tunes only once; not for operators',
  }),
});
