/**
 * The built `aorta-probe` bin (scripts/bundle-cli.mjs): a code-split CommonJS bundle whose start-up loads only
 * what a command needs, started through a plain `#!/usr/bin/env node` (no V8 flag: see young-generation.ts). What the other CLI suites
 * run is this same file; these tests pin the properties the cold-start figures depend on.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Module from 'node:module';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CACHE_SUFFIX, wrapChunk } from '../src/cli/code-cache.js';
import { REPO_ROOT } from './support/browser.js';

const CLI_DIR = join(REPO_ROOT, 'dist', 'src', 'cli');
const MAIN = join(CLI_DIR, 'main.cjs');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  files: string[];
};

/**
 * The relative modules a file requires when it is loaded (`require("./x.cjs")` at the top level), in order. A
 * command's chunk is required inside a function (`Promise.resolve().then(() => require(...))`), after a `=>`.
 */
function staticRequires(file: string): string[] {
  const src = readFileSync(join(CLI_DIR, file), 'utf8');
  return [...src.matchAll(/(=>\s*)?require\(["'](\.\/[^"']+)["']\)/g)]
    .filter((m) => m[1] === undefined)
    .map((m) => m[2]!);
}

describe('the aorta-probe bin', () => {
  it('is the package.json bin, and its first line runs node without V8 flags', () => {
    expect(pkg.bin['aorta-probe']).toBe('dist/src/cli/main.cjs');
    expect(readFileSync(MAIN, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env node');
  });

  it('runs through its shebang and prints the version', () => {
    expect(execFileSync(MAIN, ['--version'], { encoding: 'utf8' })).toBe(`aorta-probe ${pkg.version}\n`);
  });

  it('starts by loading one shared chunk, not the command modules or the recipe loader', () => {
    // The core chunk, which requires only rolldown's runtime (its CommonJS interop helpers, ~1 KB, a chunk of its
    // own): --version loads three small files of ours and reads package.json.
    const imports = staticRequires('main.cjs');
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatch(/^\.\/chunk-core-[\w-]+\.cjs$/);
    const core = staticRequires(imports[0]!.slice(2));
    expect(core).toHaveLength(1);
    expect(core[0]).toMatch(/^\.\/chunk-rolldown-runtime-[\w-]+\.cjs$/);
    expect(staticRequires(core[0]!.slice(2))).toEqual([]);
  });

  it('imports nothing dynamically at run time: a code-cached chunk (vm.Script) has no dynamic-import callback', () => {
    // A relative import() is a require in the bundle; one of a node builtin would stay an import() and throw
    // "A dynamic import callback was not specified" when reached.
    const dynamic = readdirSync(CLI_DIR)
      .filter((f) => f.endsWith('.cjs'))
      .filter((f) => /\bimport\(/.test(readFileSync(join(CLI_DIR, f), 'utf8')));
    expect(dynamic).toEqual([]);
  });

  it('is ASCII only (one-byte sources for V8) in every chunk', () => {
    const files = ['main.cjs', ...readdirSync(CLI_DIR).filter((f) => /^chunk-.*\.cjs$/.test(f))];
    expect(files.length).toBeGreaterThan(5);
    const nonAscii = files.filter((f) => /[^\x00-\x7f]/.test(readFileSync(join(CLI_DIR, f), 'utf8')));
    expect(nonAscii).toEqual([]);
  });

  it("reads CPython's character-name table from unicode-names.json on the first \\N{...}, not from a chunk", () => {
    const chunks = readdirSync(CLI_DIR).filter((f) => /^chunk-.*\.cjs$/.test(f));
    expect(chunks.filter((f) => readFileSync(join(CLI_DIR, f), 'utf8').includes('ABACUS'))).toEqual([]);
    expect(readFileSync(join(CLI_DIR, 'unicode-names.json'), 'utf8')).toContain('"ABACUS"');
    expect(pkg.files).toContain('dist/src/cli/unicode-names.json');
    const out = execFileSync(MAIN, ['eval', "'\\N{SNOWMAN}\\N{LATIN SMALL LETTER A}' == '\u2603a'"], {
      encoding: 'utf8',
    });
    expect(out).toBe('value: True\ntype:  bool\nfired: yes\n');
  });

  it('wraps a chunk as node wraps a module, once: a wrapped chunk is compiled as it is', () => {
    expect(wrapChunk('exports.a = 1;')).toBe(Module.wrap('exports.a = 1;'));
    expect(wrapChunk('#!/usr/bin/env node\nexports.a = 1;')).toBe(Module.wrap('//#!/usr/bin/env node\nexports.a = 1;'));
    expect(wrapChunk(wrapChunk('exports.a = 1;'))).toBe(Module.wrap('exports.a = 1;'));
  });

  it('carries V8 code caches made at build time for the chunks the demo commands load, which this node accepts', () => {
    const caches = readdirSync(CLI_DIR).filter((f) => f.endsWith(CACHE_SUFFIX));
    expect(caches.length).toBeGreaterThanOrEqual(10);
    expect(pkg.files).toContain('dist/src/cli/*.v8cache');
    const rejected = caches.filter((cache) => {
      const chunk = join(CLI_DIR, cache.slice(0, -CACHE_SUFFIX.length));
      const source = readFileSync(chunk, 'utf8');
      // Written as V8 compiles it, inside node's wrapper (code-cache.ts, wrapChunk), around the bundle's text.
      const [head = '', tail = ''] = Module.wrap('\0').split('\0');
      expect(head).toBe('(function (exports, require, module, __filename, __dirname) { ');
      expect(source.startsWith(head) && source.endsWith(tail)).toBe(true);
      expect(source.slice(head.length, -tail.length)).toMatch(/^(?!\(function \(exports)\S/);
      expect(wrapChunk(source)).toBe(source);
      const script = new Script(source, {
        filename: chunk,
        cachedData: readFileSync(join(CLI_DIR, cache)),
      });
      return script.cachedDataRejected === true;
    });
    expect(rejected).toEqual([]);
  });
});
