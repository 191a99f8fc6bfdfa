/**
 * No import cycles among the project's own modules (`src/`, `assembly/`, `playground/src`): a
 * cycle makes module initialisation order matter and hides which module owns a fact. The graph is
 * test/support/module-graph.ts's (the layer test reads the same one); cycles are its strongly
 * connected components (Tarjan).
 */
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, listSources, REPO_ROOT as ROOT } from './support/module-graph.js';

const SCANNED = ['src', 'assembly', 'playground/src'];

/**
 * Cycles owned by another helper's area, listed so this test lands before their fix; each entry is
 * the sorted member list of one strongly connected component. Remove an entry once it is fixed:
 * the test fails on a listed cycle that no longer exists, so the list cannot go stale.
 */
const KNOWN_CYCLES: readonly (readonly string[])[] = [];

/** Strongly connected components with more than one member, or a module importing itself. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('import cycles among src/, assembly/ and playground/src', () => {
  it('finds a planted cycle (the check can fail)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
    ]);
    expect(findCycles(g)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('has no cycle except the listed ones owned by other areas', () => {
    const files = SCANNED.flatMap((d) => listSources(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(50);
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, importsOf(f, known)] as const));
    const cycles = findCycles(graph).map((c) => c.map((f) => relative(ROOT, f)));
    const shown = cycles.map((c) => `  ${c.join(' <-> ')}`).join('\n');
    // Printed so the test log is the cycle report.
    console.log(`import cycles found (${cycles.length}):\n${shown || '  none'}`);
    const key = (c: readonly string[]): string => c.join(' ');
    const allowed = new Set(KNOWN_CYCLES.map(key));
    expect(
      cycles.filter((c) => !allowed.has(key(c))),
      `new import cycles:\n${shown}`,
    ).toEqual([]);
    const stale = KNOWN_CYCLES.filter((c) => !cycles.some((f) => key(f) === key(c)));
    expect(stale, 'a listed cycle is gone: remove it from KNOWN_CYCLES').toEqual([]);
  });
});
