/**
 * The project's own import graph, read from source text: the cycle test and the layer test both walk it, so they
 * agree on what an import is. Every relative import/export specifier counts (static, `import type` included,
 * dynamic `import('…')` too), read with a regular expression after comments are stripped — enough for this code
 * base, which writes specifiers as plain string literals.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every TypeScript source under `dir` (no declaration files), recursively. */
export function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listSources(path));
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

// `import … from '…'`, `export … from '…'`, `import '…'`, `import('…')`; comments are stripped first.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\n]+)\1/g;

/** The files of `known` that `file` imports (relative specifiers resolved as the compiler does). */
export function importsOf(file: string, known: ReadonlySet<string>): string[] {
  return importsOfText(file, readFileSync(file, 'utf8'), known);
}

export function importsOfText(file: string, source: string, known: ReadonlySet<string>): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[2]!;
    if (!spec.startsWith('.')) continue;
    const base = resolve(dirname(file), spec);
    const candidates = [base, base.replace(/\.m?js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
    const hit = candidates.find((c) => known.has(c));
    if (hit !== undefined) out.push(hit);
  }
  return out;
}
