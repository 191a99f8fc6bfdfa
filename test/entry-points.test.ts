/**
 * The package root (src/index.ts) is browser-safe: no module it loads, statically or lazily, imports a Node
 * built-in, and the only packages it reaches are `yaml` and (in Node, at run time) re2-wasm.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|^import\s*'([^']+)'/gm;

/** Every module reachable from `entry`, with the specifiers each imports (type-only imports excluded). */
function graph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const todo = [entry];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specs: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec === undefined || /^\s*(?:import|export)\s+type\s/.test(m[0].trimStart())) continue;
      specs.push(spec);
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
    seen.set(file, specs);
  }
  return seen;
}

describe('entry points', () => {
  const root = graph(join(REPO_ROOT, 'src', 'index.ts'));

  it('the root imports no Node built-in on any path', () => {
    const builtins = new Set(builtinModules);
    const bad = [...root].flatMap(([file, specs]) =>
      specs.filter((s) => s.startsWith('node:') || builtins.has(s)).map((s) => `${relative(REPO_ROOT, file)}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  it('the root reaches only yaml among packages, and neither the runner, the GPU sampler nor the CLI', () => {
    const packages = new Set([...root.values()].flat().filter((s) => !s.startsWith('.')));
    expect([...packages]).toEqual(['yaml']);
    const files = [...root.keys()].map((f) => relative(REPO_ROOT, f));
    expect(files.filter((f) => /^src\/(trial|gpu|cli)\/|^src\/scan\/file\.ts$/.test(f))).toEqual([]);
    expect(files).toContain('src/regex/re2-glue.generated.ts'); // loaded by ready(), lazily
  });

  it('aorta-probe/node re-exports the root', () => {
    expect(readFileSync(join(REPO_ROOT, 'src', 'node.ts'), 'utf8')).toContain("export * from './index.js';");
  });
});
