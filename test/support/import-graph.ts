// The product's import graph, read from the source as text: every relative import, export-from and
// dynamic import, type-only ones included (they tie files together as much as value imports do).
// Files are grouped into rooms (a folder at a given depth, e.g. engine/webhook), and the rooms'
// strongly connected components are the folder-level cycles the house must not have.
import { globSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Each product file (relative to root) with the product files it imports. */
export function fileImports(root: string, folders: readonly string[]): Map<string, string[]> {
  const files = folders.flatMap((folder) => globSync(`${folder}/**/*.{ts,tsx}`, { cwd: root }));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(SPECIFIER)].map((match) => normalize(join(dirname(file), match[1]!)));
    graph.set(file, [...new Set(targets.filter((target) => !relative(root, join(root, target)).startsWith('..')))]);
  }
  return graph;
}

/**
 * The room a file stands in: its folder below `base`, `depth` levels deep (engine/webhook/x.ts at
 * depth 1 below engine → engine/webhook); files directly in `base` are a room of their own.
 */
export function roomOf(file: string, base: string, depth: number): string | undefined {
  if (!file.startsWith(`${base}/`)) return undefined;
  const parts = file.slice(base.length + 1).split('/');
  if (parts.length === 1) return `${base}/${parts[0]}`;
  return `${base}/${parts.slice(0, Math.min(depth, parts.length - 1)).join('/')}`;
}

/** The arrows between rooms (room → rooms it imports), self-imports left out. */
export function roomGraph(files: Map<string, string[]>, base: string, depth: number): Map<string, Set<string>> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = roomOf(file, base, depth);
    if (!from) continue;
    const arrows = rooms.get(from) ?? new Set<string>();
    rooms.set(from, arrows);
    for (const target of targets) {
      const to = roomOf(target, base, depth);
      if (to && to !== from) arrows.add(to);
    }
  }
  return rooms;
}

/** Strongly connected components with more than one member (Tarjan): each is a cycle of rooms. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}
