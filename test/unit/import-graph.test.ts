// No room of the house imports, through others, a room that imports it: the folder-level import graph
// (type-only imports included, unlike import-x/no-cycle, which sees file cycles of value imports) is
// acyclic in every process folder and in the engine's layers. Its rooms are a folder's subfolders; in
// the engine, the subfolders of edges/, domain/ and infrastructure/, and each file at its root.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { cycles, fileImports, roomGraph } from '../support/import-graph.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const files = fileImports(ROOT, ['bin', 'common', 'engine', 'facade', 'flow', 'workflows']);

for (const [folder, depth] of [
  ['engine', 2],
  ['workflows', 1],
  ['bin', 1],
  ['flow', 1],
  ['facade', 1],
  ['common', 1],
] as const) {
  test(`no folder-level import cycle in ${folder}/`, (t) => {
    const rooms = roomGraph(files, folder, depth);
    t.true(rooms.size > 1, `${folder}/ has rooms`);
    t.deepEqual(cycles(rooms), []);
  });
}

test('a planted cycle of rooms is found, and only its members', (t) => {
  const planted = new Map([
    ['engine/domain/flows/a.ts', ['engine/domain/callers/b.ts']],
    ['engine/domain/callers/b.ts', ['engine/domain/companies/c.ts']],
    ['engine/domain/companies/c.ts', ['engine/domain/flows/d.ts']],
    ['engine/domain/flows/d.ts', []],
    ['engine/domain/audit/e.ts', ['engine/domain/flows/a.ts']],
  ]);
  t.deepEqual(cycles(roomGraph(planted, 'engine', 2)), [
    ['engine/domain/callers', 'engine/domain/companies', 'engine/domain/flows'],
  ]);
  planted.set('engine/domain/companies/c.ts', []);
  t.deepEqual(cycles(roomGraph(planted, 'engine', 2)), []);
});
