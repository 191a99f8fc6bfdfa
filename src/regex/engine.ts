/**
 * The raw re2-wasm module, reached below its JS wrapper.
 *
 * Why not `import { RE2 } from 're2-wasm'`: the wrapper class (build/src/re2.js) never calls `.delete()` on the
 * embind handle it creates (nor on the `capturingGroupNames()` map copy), so every `new RE2()` leaks a few KB of
 * the fixed 16 MiB heap and a few thousand compiles abort the module. It also reports `index` in code points and
 * rewrites the pattern for JS syntax. We instead load `build/wasm/re2.js` (the emscripten glue, which the
 * wrapper itself `require`s — Node's module cache makes it the same instance and heap) and use the embind class
 * `WrappedRE2` directly, deleting every handle we receive.
 *
 * The embind surface (from google/re2-wasm wrap/re2_wrap.cc, commit 419efd4):
 *   new WrappedRE2(pattern, ignoreCase, multiline, dotAll)   — never throws; check ok()/error()
 *   match(input: std::string, startInCodePoints, getGroups)  — {match, index (code points), groups[]}
 *   capturingGroupNames()                                    — a *copy* of std::map<int,string>; must be deleted
 *   delete()                                                 — frees the shared_ptr handle
 * `multiline` only sets RE2's `one_line`, which RE2 ignores outside posix_syntax mode, so the `m` flag has to be
 * expressed as a `(?m)` prefix (the JS wrapper does the same).
 */
import { re2Module } from './engine-loader.js';
import { RegexEngineError } from './errors.js';

export interface RawMatch {
  match: string;
  /** Index of the match in the subject, counted in code points (not UTF-16 units, not bytes). -1 if none. */
  index: number;
  /** Capture groups 1..n; `undefined` for a group that did not take part. */
  groups: (string | undefined)[];
}

interface CppVector<T> {
  get(i: number): T;
  size(): number;
  delete(): void;
}

interface CppMap<K, V> {
  keys(): CppVector<K>;
  get(k: K): V;
  delete(): void;
}

export interface RawRE2 {
  ok(): boolean;
  error(): string;
  pattern(): string;
  /** `input` may be a string (UTF-8 encoded by embind) or a Uint8Array of UTF-8 bytes (copied byte-wise). */
  match(input: string | Uint8Array, start: number, getCapturingGroups: boolean): RawMatch;
  capturingGroupNames(): CppMap<number, string>;
  delete(): void;
  isDeleted(): boolean;
}

let aborted: string | null = null;

/** Runs `fn` against the module; an emscripten abort becomes a `RegexEngineError` and poisons the engine. */
export function callEngine<T>(what: string, fn: () => T): T {
  if (aborted !== null) {
    throw new RegexEngineError(`re2-wasm engine is unusable after an earlier abort (${aborted})`);
  }
  try {
    return fn();
  } catch (err) {
    // embind BindingErrors are JS-side argument errors; anything from inside WASM (RuntimeError, "abort(...)")
    // means the heap may be corrupt.
    if (err instanceof WebAssembly.RuntimeError || (err instanceof Error && /abort\(|OOM/.test(err.message))) {
      aborted = `${what}: ${err.message.split('\n')[0]}`;
      throw new RegexEngineError(`re2-wasm aborted during ${what}: ${err.message.split('\n')[0]}`);
    }
    throw err;
  }
}

/** Compiles without any translation. The caller owns the handle and must `delete()` it (also when !ok()). */
export function newRawRE2(pattern: string, ignoreCase: boolean, dotAll: boolean): RawRE2 {
  return callEngine('compile', () => {
    const { WrappedRE2 } = re2Module();
    return new WrappedRE2(pattern, ignoreCase, false, dotAll);
  });
}

/** Group index (1-based) → name, read from the map copy, which is deleted before returning. */
export function readGroupNames(raw: RawRE2): Map<number, string> {
  return callEngine('capturingGroupNames', () => {
    const out = new Map<number, string>();
    const map = raw.capturingGroupNames();
    try {
      const keys = map.keys();
      try {
        for (let i = 0; i < keys.size(); i++) {
          const k = keys.get(i);
          out.set(k, map.get(k));
        }
      } finally {
        keys.delete();
      }
    } finally {
      map.delete();
    }
    return out;
  });
}

export interface HeapProbe {
  /** Total linear memory: fixed at 16 MiB in re2-wasm 1.0.2 (no ALLOW_MEMORY_GROWTH). */
  heapBytes: number;
  /**
   * Address malloc returns for a 1 MiB block (freed at once). A leak pushes fresh blocks to higher addresses, so
   * comparing this before/after a workload shows heap growth. Only call it when at least 1 MiB is free:
   * a failed malloc aborts the module.
   */
  probe1MiBAddress: number;
  /** Live emval handles (JS values held by WASM); should stay flat. */
  emvalHandles: number;
}

/** Diagnostics for tests and measurement scripts. */
export function heapProbe(): HeapProbe {
  return callEngine('heapProbe', () => {
    const mod = re2Module();
    const p = mod._malloc(1 << 20);
    mod._free(p);
    return { heapBytes: mod.HEAPU8.length, probe1MiBAddress: p, emvalHandles: mod.count_emval_handles() };
  });
}

/** Whether an earlier abort has made the engine refuse work (reason), or null. */
export function engineAbortReason(): string | null {
  return aborted;
}
