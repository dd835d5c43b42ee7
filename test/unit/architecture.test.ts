import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house's plan (../shared/ARCHITECTURE.md): imports run one way, from the top of this list down.
 * Rooms on one line are siblings and may not import each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['index.ts'],
  ['cli'],
  ['run.ts'],
  ['stage-table.ts'],
  ['stages'],
  ['context.ts'],
  ['ingest', 'synth'],
  ['memory'],
  ['settings', 'templates'],
  ['telemetry'],
  ['safety'],
  ['io'],
  ['model'],
];

const PIPELINE = resolve(import.meta.dirname, '../../pipeline');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every relative import of a file (static, type-only, re-exports and dynamic `import()`), as repo paths. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'));
}

function roomOf(file: string): string {
  return relative(PIPELINE, file).split('/')[0]!;
}

function rankOf(room: string): number {
  const rank = LAYERS.findIndex((layer) => layer.includes(room));
  if (rank < 0) throw new Error(`pipeline/${room} is in no layer of the plan: add it to LAYERS and ARCHITECTURE.md`);
  return rank;
}

const graph = new Map(sources(PIPELINE).map((file) => [file, importsOf(file)]));
const name = (file: string) => relative(PIPELINE, file);

/** The file cycles of a graph (Tarjan's strongly connected components of more than one file, or a self-import). */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next); low.set(node, next); next++;
    stack.push(node); onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue;
      if (!index.has(to)) { visit(to); low.set(node, Math.min(low.get(node)!, low.get(to)!)); }
      else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do { member = stack.pop()!; onStack.delete(member); component.push(member); } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.map(name).sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the import graph follows the plan', () => {
  it('reads every source file and finds their imports', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get(join(PIPELINE, 'run.ts'))).toContain(join(PIPELINE, 'stages', 'gate.ts'));
  });

  it('no import runs up the house or sideways between sibling rooms', () => {
    const uphill: string[] = [];
    for (const [file, targets] of graph) {
      const from = roomOf(file);
      for (const target of targets) {
        const to = roomOf(target);
        if (to !== from && rankOf(to) <= rankOf(from)) uphill.push(`${name(file)} -> ${name(target)}`);
      }
    }
    expect(uphill).toEqual([]);
  });

  it('there are no import cycles between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle and an uphill import when there is one (the checks can fail)', () => {
    const a = join(PIPELINE, 'model', 'a.ts');
    const b = join(PIPELINE, 'model', 'b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['model/a.ts', 'model/b.ts']]);
    expect(rankOf('model')).toBeGreaterThan(rankOf('stages'));
  });
});
