/**
 * The golden files under fixtures/ (every file named `golden-*`) and the header each starts with, as
 * scripts/golden_meta.py writes it: the first line `{"meta": …}` of a JSON Lines file, the top-level "meta" key
 * of a JSON file, or a first line `# meta: {…}` of any other text file. Shared by `npm run goldens` and the test
 * that checks every header.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** @typedef {{ generator: string, command: string, python: string }} GoldenMeta */

/** Every golden file, as a path from `root`, sorted. */
export function goldenFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.startsWith('golden-')) out.push(relative(root, p));
    }
  };
  walk(join(root, 'fixtures'));
  return out.sort();
}

/** The header of one golden file, or null when it has none. @returns {GoldenMeta | null} */
export function goldenMeta(root, path) {
  const text = readFileSync(join(root, path), 'utf8');
  const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
  try {
    if (path.endsWith('.jsonl')) return JSON.parse(firstLine).meta ?? null;
    if (path.endsWith('.json')) return JSON.parse(text).meta ?? null;
    const m = /^(?:#|\/\/)\s*meta:\s*(\{.*\})\s*$/.exec(firstLine);
    return m === null ? null : JSON.parse(m[1]);
  } catch {
    return null;
  }
}
