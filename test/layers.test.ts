/**
 * The house's layers, as CONTRIBUTING.md's "Map of the tree" draws them: each folder of `src/` (and the playground,
 * and `assembly/`) may import only the folders its row lists. The table is read from the file, so the map and the
 * code cannot drift: an import the map does not allow fails, and so does a listed arrow that no import uses any
 * more (the map would claim a dependency that is not there).
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, listSources, REPO_ROOT } from './support/module-graph.js';

/** A layer: a `src/` folder (`recipe`), a root file of `src/` (`errors.ts`), `assembly/` or `playground`. */
type Layer = string;

interface MapRow {
  readonly layers: readonly Layer[];
  /** The layers it may import; null for "everything above" (any layer listed before it). */
  readonly allowed: readonly Layer[];
  /** The row lists its imports one by one (so each must still be used). */
  readonly explicit: boolean;
}

/** The layer a path names in the map's first column. */
function layerOfCell(name: string): Layer | null {
  if (name === 'assembly/') return 'assembly/';
  if (name === 'playground/') return 'playground';
  const m = /^src\/(?:([a-z]+)\/|([a-z]+\.ts))$/.exec(name);
  return m === null ? null : (m[1] ?? m[2]!);
}

/** Parses the table under "## Map of the tree". */
function parseMap(markdown: string): MapRow[] {
  const section = markdown.slice(markdown.indexOf('## Map of the tree'));
  const rows: MapRow[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith('`')) continue;
    const layers = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => layerOfCell(m[1]!));
    if (layers.some((l) => l === null)) continue; // schemas/, test/, docs/ …: not code this test walks
    const may = cells[cells.length - 2]!;
    const above = rows.flatMap((r) => r.layers);
    if (may.startsWith('nothing')) rows.push({ layers: layers as Layer[], allowed: [], explicit: false });
    else if (may === 'everything above') rows.push({ layers: layers as Layer[], allowed: above, explicit: false });
    else {
      const named = [...may.matchAll(/`([^`]+)`/g)]
        .map((m) => m[1]!)
        .filter((t) => /^(?:[a-z]+|[a-z]+\.ts|assembly\/)$/.test(t));
      rows.push({ layers: layers as Layer[], allowed: named, explicit: true });
    }
  }
  return rows;
}

/** The layer a source file belongs to. */
function layerOfFile(path: string): Layer | null {
  const rel = relative(REPO_ROOT, path).split(sep);
  if (rel[0] === 'assembly') return 'assembly/';
  if (rel[0] === 'playground') return 'playground';
  if (rel[0] !== 'src') return null;
  return rel[1]!; // a folder, or a root file such as `errors.ts`
}

interface LayerReport {
  /** `from → to: file imports target`, for every import the map does not allow. */
  readonly forbidden: string[];
  /** `from → to` arrows a row lists that no import uses. */
  readonly unused: string[];
}

function checkLayers(
  rows: readonly MapRow[],
  graph: ReadonlyMap<string, readonly string[]>,
  layerOf: (file: string) => Layer | null,
): LayerReport {
  const rowOf = new Map<Layer, MapRow>();
  for (const r of rows) for (const l of r.layers) rowOf.set(l, r);
  const used = new Set<string>();
  const forbidden: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from === null) continue;
    const row = rowOf.get(from);
    for (const target of targets) {
      const to = layerOf(target);
      if (to === null || to === from) continue;
      used.add(`${from} → ${to}`);
      if (row === undefined || !row.allowed.includes(to))
        forbidden.push(`${from} → ${to}: ${relative(REPO_ROOT, file)} imports ${relative(REPO_ROOT, target)}`);
    }
  }
  const unused = rows
    .filter((r) => r.explicit)
    .flatMap((r) => r.layers.flatMap((from) => r.allowed.map((to) => `${from} → ${to}`)))
    .filter((arrow) => !used.has(arrow));
  return { forbidden: forbidden.sort(), unused };
}

describe("CONTRIBUTING.md's map of the tree is the import graph", () => {
  const rows = parseMap(readFileSync(join(REPO_ROOT, 'CONTRIBUTING.md'), 'utf8'));

  it('reads a row for every folder of src/ and every root file', () => {
    const layers = new Set(rows.flatMap((r) => r.layers));
    const present = new Set(listSources(join(REPO_ROOT, 'src')).map((f) => layerOfFile(f)!));
    expect([...present].filter((l) => !layers.has(l)).sort()).toEqual([]);
    expect(rows.find((r) => r.layers.includes('detectors'))).toEqual({
      layers: ['detectors'],
      allowed: [],
      explicit: false,
    });
    expect(rows.find((r) => r.layers.includes('classifier'))!.allowed).toEqual([
      'detectors',
      'condition',
      'recipe',
      'regex',
      'scan',
      'text',
    ]);
  });

  it('fails on a planted back arrow and on a stale arrow (the check can fail)', () => {
    const planted = parseMap(
      [
        '## Map of the tree',
        '| folder | job | may import |',
        '|---|---|---|',
        '| `src/detectors/` | data | nothing in `src/` |',
        '| `src/scan/` | scan | `detectors`, `regex` |',
        '| `src/cli/` | commands | everything above |',
      ].join('\n'),
    );
    const f = (p: string): string => join(REPO_ROOT, p);
    const graph = new Map([
      [f('src/detectors/ids.ts'), [f('src/scan/scan.ts')]],
      [f('src/scan/scan.ts'), [f('src/detectors/ids.ts'), f('src/scan/tier4.ts')]],
      [f('src/cli/main.ts'), [f('src/scan/scan.ts'), f('src/detectors/ids.ts')]],
    ]);
    expect(checkLayers(planted, graph, layerOfFile)).toEqual({
      forbidden: ['detectors → scan: src/detectors/ids.ts imports src/scan/scan.ts'],
      unused: ['scan → regex'],
    });
  });

  it('no import runs against the map, and every listed arrow is used', () => {
    const files = ['src', 'assembly', 'playground/src'].flatMap((d) => listSources(join(REPO_ROOT, d)));
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, importsOf(f, known)] as const));
    const report = checkLayers(rows, graph, layerOfFile);
    expect(report.forbidden, 'imports the map forbids (fix the import, or the map if the design changed)').toEqual([]);
    expect(report.unused, 'arrows in the map that no import uses (remove them from CONTRIBUTING.md)').toEqual([]);
  });
});
