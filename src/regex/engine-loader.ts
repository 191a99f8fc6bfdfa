/**
 * How this environment obtains the re2-wasm module — the only environment-specific part of the regex engine.
 *
 * - Node (≥ 20.16, which has `process.getBuiltinModule`): on first need, synchronously, by requiring re2-wasm's
 *   emscripten glue exactly as re2-wasm's own wrapper does. No `node:` import appears in this file, so the
 *   package root stays loadable in a browser and a bundler never sees a Node built-in.
 * - Browsers (main thread or a worker of either kind): the glue cannot be required and the wasm cannot be read
 *   synchronously on a main thread, so `ready()` must be awaited once before the first regex is compiled. It
 *   fetches `re2.wasm` and runs the glue from `re2-glue.generated.js` (the same glue wrapped in an ES module
 *   factory), imported lazily so a page that only evaluates conditions never downloads either. Which `re2.wasm`:
 *   `options.re2Wasm` when given (a CDN, a CSP that allows one origin), else the copy shipped beside
 *   re2-wasm-url.js, named there as `new URL('./re2.wasm', import.meta.url)` so that bundlers emit and rewrite it.
 *   Node never reaches that path (`ready()` and `re2Module()` take the synchronous one first).
 */
import { RegexEngineError } from './errors.js';
import type { RawRE2 } from './re2-types.js';
import { bundledRe2WasmUrl } from './re2-wasm-url.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

export interface Re2Module {
  WrappedRE2: new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean) => RawRE2;
  _malloc(size: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
  count_emval_handles(): number;
}

/** Where `ready()` finds re2-wasm's binary outside Node. */
export interface ReadyOptions {
  /**
   * An override: the URL of re2-wasm's `build/wasm/re2.wasm` (the version this package depends on), or its bytes.
   * Without it a browser fetches the copy that ships in this package, which Vite and webpack 5 bundle as an asset
   * with no configuration. Ignored in Node.
   */
  re2Wasm?: string | URL | ArrayBuffer | Uint8Array;
}

/** `ready`'s option keys (text/options.ts). */
export const READY_OPTION_KEYS = { re2Wasm: OPTION } satisfies OptionTable<ReadyOptions>;

interface NodeProcess {
  getBuiltinModule?(id: 'node:module'): { createRequire(from: string | URL): (id: string) => unknown } | undefined;
}

let loaded: Re2Module | undefined;
let loading: Promise<void> | undefined;
/** Whether `loaded` was handed out by `freshRe2Module` already (each instance needs its own heap). */
let loadedTaken = false;
/** Browser: how `ready()` built `loaded`, to build further instances the same way. */
let browserFactory: (() => Re2Module) | undefined;

/** Node's `require` for this module, made once (null: not Node); every regex compile asks `isReady()`. */
let nodeRequireFn: ((id: string) => unknown) | null | undefined;
function nodeRequire(): ((id: string) => unknown) | undefined {
  if (nodeRequireFn === undefined) {
    const proc = (globalThis as { process?: NodeProcess }).process;
    const mod = proc?.getBuiltinModule?.('node:module');
    nodeRequireFn = mod === undefined ? null : mod.createRequire(import.meta.url);
  }
  return nodeRequireFn ?? undefined;
}

/**
 * The engine module, loading it on first call in Node. Elsewhere it exists only after `ready()` resolved; a call
 * before that is a `RegexEngineError` naming the fix.
 */
export function re2Module(): Re2Module {
  if (loaded !== undefined) return loaded;
  const req = nodeRequire();
  if (req === undefined) {
    throw new RegexEngineError(
      'the regex engine is not loaded: in a browser, `await ready()` (from aorta-probe) before compiling regexes, loading recipes or scanning logs',
    );
  }
  loaded = req('re2-wasm/build/wasm/re2.js') as Re2Module;
  return loaded;
}

/**
 * A module instance of its own (a new 16 MiB heap) for engine.ts's pool: the first call returns the loaded
 * module, later ones evaluate the glue again (Node: a fresh require; browser: the factory `ready()` used).
 */
export function freshRe2Module(): Re2Module {
  if (!loadedTaken) {
    const first = re2Module();
    loadedTaken = true;
    return first;
  }
  if (browserFactory !== undefined) return browserFactory();
  const req = nodeRequire() as
    | (((id: string) => unknown) & { cache?: Record<string, unknown>; resolve?: (id: string) => string })
    | undefined;
  if (req === undefined) return re2Module(); // throws the "not loaded" error
  if (req.cache !== undefined && req.resolve !== undefined) delete req.cache[req.resolve('re2-wasm/build/wasm/re2.js')];
  return req('re2-wasm/build/wasm/re2.js') as Re2Module;
}

/**
 * Whether the engine is loaded (or, in Node, loadable synchronously): regex work will not throw for want of it.
 * compile.ts defers a program's compile only then, so that a browser that skipped `ready()` gets the same error
 * for every pattern, not only for the ones whose compile would otherwise wait.
 */
export function isReady(): boolean {
  return loaded !== undefined || nodeRequire() !== undefined;
}

/**
 * Loads the regex engine. Needed once in a browser before any regex work (compiling a regex, `loadRecipe`,
 * `scanLog`, `scanStream`, `lintRecipe`), with no argument: it fetches the package's own re2.wasm (which a bundler
 * emits as an asset) unless `options.re2Wasm` says otherwise. In Node it only loads eagerly what would otherwise
 * load on first use. Conditions alone (`validateCondition`, `compileCondition`, `evaluate`) never need it.
 */
export function ready(options: ReadyOptions = {}): Promise<void> {
  // Checked in Node too, where the options are not needed: what a browser would refuse fails in Node's tests first.
  try {
    checkOptions('ready', options, READY_OPTION_KEYS);
  } catch (err) {
    return Promise.reject(err);
  }
  if (loaded !== undefined) return Promise.resolve();
  if (nodeRequire() !== undefined) {
    re2Module();
    return Promise.resolve();
  }
  loading ??= loadInBrowser(options).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** Appended to a failure to load the package's own re2.wasm: what to do instead. */
const BUNDLED_HINT =
  " (the package's own re2.wasm, named by `new URL('./re2.wasm', import.meta.url)`; where a bundler does not emit it as an asset, pass `ready({ re2Wasm })`: the URL of re2-wasm's build/wasm/re2.wasm, or its bytes)";

async function loadInBrowser(options: ReadyOptions): Promise<void> {
  let wasmBinary: Uint8Array;
  if (options.re2Wasm !== undefined) wasmBinary = await wasmBytes(options.re2Wasm, '');
  else {
    let url: URL;
    try {
      url = bundledRe2WasmUrl(); // throws where a bundler left no usable `import.meta.url` (a classic script)
    } catch (err) {
      throw new RegexEngineError(`ready(): cannot locate re2.wasm: ${String(err)}${BUNDLED_HINT}`);
    }
    wasmBinary = await wasmBytes(url, BUNDLED_HINT);
  }
  const { default: createRe2Module } = await import('./re2-glue.generated.js');
  const make = (): Re2Module => {
    const mod = createRe2Module({ wasmBinary }) as Partial<Re2Module>;
    if (typeof mod.WrappedRE2 !== 'function') throw new RegexEngineError('re2-wasm did not initialise synchronously');
    return mod as Re2Module;
  };
  loaded = make();
  browserFactory = make;
}

/** re2.wasm's bytes from `src`; `hint` ends any error message. */
async function wasmBytes(src: string | URL | ArrayBuffer | Uint8Array, hint: string): Promise<Uint8Array> {
  if (src instanceof Uint8Array) return src;
  if (src instanceof ArrayBuffer) return new Uint8Array(src);
  let res: Response;
  try {
    res = await fetch(src);
  } catch (err) {
    throw new RegexEngineError(`ready(): cannot fetch ${String(src)}: ${String(err)}${hint}`);
  }
  if (!res.ok) throw new RegexEngineError(`ready(): cannot fetch ${String(src)}: HTTP ${res.status}${hint}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  // A server's fallback page (an HTML 200 for any path) would otherwise fail later as an obscure CompileError.
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    const type = res.headers.get('content-type') ?? 'no content type';
    throw new RegexEngineError(`ready(): ${String(src)} is not WebAssembly (the server sent ${type})${hint}`);
  }
  return bytes;
}
