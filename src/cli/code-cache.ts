/**
 * V8 code caches for the bin's own chunks (dist/src/cli/*.cjs), made at build time.
 *
 * Why: a cold `check` or `scan` compiles ~500 KB of our JavaScript (the recipe loader, yaml, the regex layer)
 * before doing anything, ~40 ms of its ~240. With a cache, V8 deserialises the bytecode of every function the
 * build's training run compiled instead (measured: `check` of the demo 301 → 246 ms median, side by side).
 * Node 22 has `module.enableCompileCache()` for this; node 20 does not, so the bin compiles its chunks through
 * `vm.Script` with `cachedData`, as node's own loader would compile them otherwise (`Module.wrap`, then the
 * wrapper called with `exports, require, module, __filename, __dirname`).
 *
 * Safe by construction: V8 accepts a cache only for the exact source text, V8 version and flags that made it,
 * and rejects it otherwise (the chunk then compiles as usual, at no cost beyond reading the file). Caches are
 * written only at build time (scripts/code-cache.mjs sets AORTA_PROBE_WRITE_CODE_CACHE), into the package's own
 * directory — never at run time, so no shared writable place (a /tmp) can feed code into the process.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname } from 'node:path';
import type { Script } from 'node:vm';

/** The cache of chunk F is F + CACHE_SUFFIX, beside it. */
export const CACHE_SUFFIX = '.v8cache';

/** What this module needs of node's CommonJS loader (not in its published types). */
interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string): unknown;
}
interface CjsModuleClass {
  prototype: CjsModule;
  wrap(source: string): string;
}

/** Installs the cache for `.cjs` files in `dir` (the bin's directory). */
export function useCodeCache(dir: string): void {
  const loader = Module as unknown as CjsModuleClass;
  const compile = loader.prototype._compile;
  const write = process.env.AORTA_PROBE_WRITE_CODE_CACHE === '1';
  const made: [file: string, script: Script][] = [];
  loader.prototype._compile = function (this: CjsModule, content: string, filename: string): unknown {
    if (dirname(filename) !== dir || !filename.endsWith('.cjs')) return compile.call(this, content, filename);
    const cacheFile = filename + CACHE_SUFFIX;
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
    const script = new (vm().Script)(wrapChunk(content), { filename, cachedData });
    if (write) made.push([cacheFile, script]);
    const wrapper = script.runInThisContext() as (
      exports: unknown,
      require: (id: string) => unknown,
      module: CjsModule,
      filename: string,
      dirname: string,
    ) => unknown;
    const require = (id: string): unknown => this.require(id);
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  // At exit, the cache holds every function the run compiled, not only the top level. Of the training runs that
  // load a chunk, the one that compiled the most of it (the largest cache) keeps its cache.
  if (write) {
    flush = () => {
      flush = () => {};
      for (const [file, script] of made) {
        const data = script.createCachedData();
        let before = 0;
        try {
          before = statSync(file).size;
        } catch {
          before = 0;
        }
        if (data.length > before) writeFileSync(file, data);
      }
    };
    process.once('exit', () => flush());
  }
}

let flush = (): void => {};

/** Node's CommonJS wrapper (`Module.wrap`), split where a module's text goes. */
const [WRAP_HEAD = '', WRAP_TAIL = ''] = (Module as unknown as CjsModuleClass).wrap('\0').split('\0');

/**
 * A chunk's text as V8 compiles it: inside node's CommonJS wrapper, a shebang made a comment (node's loader strips
 * it the same way; the comment keeps columns). A chunk already so wrapped is returned as it is: scripts/code-cache.mjs
 * writes each chunk that has a cache wrapped, so that the text read is the text compiled. Wrapping it here instead
 * made V8 flatten a copy of every chunk's text in the young generation (~400 KB of a cold `check` or `scan`, which
 * all survive: an early scavenge more, 1-4 ms of each command, measured side by side).
 */
export function wrapChunk(content: string): string {
  if (content.startsWith(WRAP_HEAD) && content.endsWith(WRAP_TAIL)) return content;
  return WRAP_HEAD + (content.startsWith('#!') ? `//${content}` : content) + WRAP_TAIL;
}

/** node:vm on first use: `--version` loads no chunk through the cache and should not pay for the module. */
let vmModule: typeof import('node:vm') | undefined;
function vm(): typeof import('node:vm') {
  vmModule ??= process.getBuiltinModule('node:vm');
  return vmModule;
}

/**
 * Writes the training run's caches now (at build time; otherwise nothing): called before V8's flags change
 * (young-generation.ts), since a cache is keyed by the flag hash it was made under and would be rejected by a
 * process started without the change.
 */
export function flushCodeCache(): void {
  flush();
}
