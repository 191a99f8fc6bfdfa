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
 *
 * Containment. The module's heap is fixed at 16 MiB (the wasm declares a 256-page maximum) and malloc failure
 * aborts the whole instance: one hostile pattern (`\pL{100}`), a set that does not fit together, or a DFA that
 * grows while matching would otherwise poison every regex in the process. So the engine is a *pool* of module
 * instances and every compiled program is a `Re2Program` that outlives the instance it currently lives in:
 *  - instances are loaded lazily (first compile), each a fresh evaluation of the glue (≈20 ms, ≈1 MB RSS: V8
 *    caches the compiled wasm code), so importing this file loads nothing;
 *  - new programs go into the *open* instance; when a compile aborts there, the instance is dropped, its other
 *    programs are recompiled eagerly into two fresh *closed* instances (half each, so both have headroom and a set
 *    that overflowed once is never packed back together), and the pattern is retried alone in a fresh instance:
 *    if it aborts even there it is too large for the engine (`RegexTooLargeError`, a recipe error);
 *  - when a match aborts, the same split happens and the match is retried once with the program alone in a
 *    fresh *dedicated* instance; if that aborts too, `RegexMatchAbortError` names the pattern and the subject
 *    size, and every other program keeps working.
 * The linear-time guarantee is RE2's own: nothing here changes which engine runs a pattern.
 */
import { freshRe2Module, type Re2Module } from './engine-loader.js';
import type { RawMatch, RawRE2 } from './re2-types.js';

export type { RawMatch, RawRE2 } from './re2-types.js';
import { RegexEngineError, RegexMatchAbortError, RegexTooLargeError } from './errors.js';

/**
 * A fresh engine module (new heap) from engine-loader.ts, which knows how this environment loads re2-wasm.
 * The glue binds `err = console.warn.bind(console)` at load and prints the abort text there before throwing it;
 * the throw is what we act on, so that stderr line is routed to `engineWarnings` instead.
 */
function loadFreshModule(): Re2Module {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => recordWarning(args.map(String).join(' '));
  try {
    return freshRe2Module();
  } finally {
    console.warn = warn;
  }
}

const warnings: string[] = [];
function recordWarning(text: string): void {
  warnings.push(text.slice(0, 500));
  if (warnings.length > 16) warnings.shift();
}

/** One evaluation of the glue: its own heap and its own programs. */
class Instance {
  static #next = 1;
  readonly id = Instance.#next++;
  readonly mod: Re2Module;
  /** Why the instance was dropped (it then holds no programs), or null while usable. */
  dead: string | null = null;
  /** Open instances take new programs; closed ones only keep (and lose) the programs they were given. */
  open: boolean;
  readonly programs = new Set<Re2Program>();

  constructor(open: boolean) {
    this.mod = loadFreshModule();
    this.open = open;
    stats.instancesLoaded++;
    liveInstances.add(this);
  }

  /** Forgets the instance once nothing refers to it any more (its heap is then garbage). */
  release(): void {
    if (this.dead !== null || (this.programs.size === 0 && this !== openInstance)) liveInstances.delete(this);
  }
}

/** Thrown inside the pool when an instance aborts; never escapes this module. */
class InstanceAbort extends Error {}

function isAbort(err: unknown): err is Error {
  // embind BindingErrors are JS-side argument errors; anything from inside WASM (RuntimeError, "abort(...)")
  // means the heap may be corrupt.
  return err instanceof WebAssembly.RuntimeError || (err instanceof Error && /abort\(|OOM/.test(err.message));
}

/** The abort's first line, without emscripten's advice on build flags (it names none a user can change). */
function firstLine(err: Error): string {
  const line = err.message.split('\n')[0] ?? '';
  const oom = line.indexOf('(OOM)');
  return oom >= 0 ? `${line.slice(0, oom + 5)})` : line;
}

/** Runs `fn` inside `inst`; an abort drops the instance (see `drop`) and surfaces as `InstanceAbort`. */
function within<T>(inst: Instance, what: string, fn: () => T, culprit: Re2Program | null): T {
  if (inst.dead !== null) throw new InstanceAbort(inst.dead);
  try {
    return fn();
  } catch (err) {
    if (!isAbort(err)) throw err;
    const reason = `${what}: ${firstLine(err)}`;
    drop(inst, reason, culprit);
    throw new InstanceAbort(reason);
  }
}

let openInstance: Instance | null = null;
/** Instances that hold programs or are open (for `engineStats`); dropped and emptied ones leave. */
const liveInstances = new Set<Instance>();

const stats = { instancesLoaded: 0, aborts: 0, rebinds: 0 };
let lastAbort: string | null = null;

function open(): Instance {
  if (openInstance === null || openInstance.dead !== null || !openInstance.open) setOpen(new Instance(true));
  return openInstance!;
}

function setOpen(inst: Instance): void {
  const old = openInstance;
  openInstance = inst;
  if (old !== null && old !== inst) {
    old.open = false;
    old.release();
  }
}

/**
 * Drops an aborted instance. Its programs other than `culprit` are recompiled at once into two fresh closed
 * instances, half each; a program that cannot be recompiled even so is left unbound and reports the failure on
 * its next use. `culprit` is left unbound for its caller to retry.
 */
function drop(inst: Instance, reason: string, culprit: Re2Program | null): void {
  inst.dead = reason;
  inst.open = false;
  if (openInstance === inst) openInstance = null;
  inst.release();
  stats.aborts++;
  lastAbort = reason;
  const survivors = [...inst.programs].filter((p) => p !== culprit);
  inst.programs.clear();
  for (const p of [culprit, ...survivors]) p?.unbind();
  const half = Math.ceil(survivors.length / 2);
  for (const group of [survivors.slice(0, half), survivors.slice(half)]) {
    if (group.length === 0) continue;
    const home = new Instance(false);
    for (const p of group) {
      if (home.dead !== null) break; // a rebind aborted: `drop(home)` already re-homed what it held
      try {
        p.bindTo(home);
      } catch (err) {
        if (!(err instanceof InstanceAbort)) throw err;
      }
    }
  }
}

/**
 * A compiled RE2 program that survives engine aborts: it remembers its source and is recompiled in another
 * instance when the one holding it is dropped. The owner must call `delete()`.
 */
export class Re2Program {
  #inst: Instance | null = null;
  #raw: RawRE2 | null = null;
  #deleted = false;
  /** The last instance failure this program could not recover from (reported on use), or null. */
  #broken: string | null = null;
  /** Set once a match aborted: from then on the program is only ever placed alone. */
  #heavy = false;
  /** A deferred program not compiled yet: its first compile is checked (`#live`). */
  #unverified: boolean;

  constructor(
    readonly source: string,
    readonly ignoreCase: boolean,
    readonly dotAll: boolean,
    deferred = false,
  ) {
    this.#unverified = deferred;
  }

  /** @internal compiles into `inst` (which must not hold it yet). Throws InstanceAbort. */
  bindTo(inst: Instance): void {
    const raw = within(
      inst,
      'compile',
      () => new inst.mod.WrappedRE2(this.source, this.ignoreCase, false, this.dotAll),
      this,
    );
    this.#inst = inst;
    this.#raw = raw;
    this.#broken = null;
    inst.programs.add(this);
    stats.rebinds++;
  }

  /** @internal forgets the (dropped) instance without touching it. */
  unbind(): void {
    this.#inst = null;
    this.#raw = null;
  }

  /** The live embind handle, recompiling it first if its instance was dropped. */
  #live(): { inst: Instance; raw: RawRE2 } {
    if (this.#deleted) throw new RegexEngineError(`program ${JSON.stringify(this.source)} was deleted`);
    if (this.#inst !== null && this.#raw !== null && this.#inst.dead === null)
      return { inst: this.#inst, raw: this.#raw };
    try {
      if (this.#heavy) placeAlone(this, true);
      else place(this);
    } catch (err) {
      if (!(err instanceof InstanceAbort)) throw err;
      this.#broken = err.message;
      throw new RegexEngineError(`re2-wasm cannot hold ${JSON.stringify(this.source)} (${err.message})`);
    }
    if (this.#unverified) {
      // deferred-compile.ts proves this compile succeeds; were it wrong, fail loudly rather than match nothing.
      this.#unverified = false;
      const raw = this.#raw!;
      if (!raw.ok()) {
        const why = raw.error();
        this.delete();
        throw new RegexEngineError(`RE2 rejected the deferred program ${JSON.stringify(this.source)}: ${why}`);
      }
    }
    return { inst: this.#inst!, raw: this.#raw! };
  }

  /** Runs a call on the handle; an abort re-homes this program and the call is retried once alone. */
  #call<T>(what: string, fn: (raw: RawRE2) => T): T {
    const { inst, raw } = this.#live();
    try {
      return within(inst, what, () => fn(raw), this);
    } catch (err) {
      if (!(err instanceof InstanceAbort)) throw err;
    }
    this.#heavy = true;
    try {
      placeAlone(this, true);
      return within(this.#inst!, what, () => fn(this.#raw!), this);
    } catch (err) {
      if (!(err instanceof InstanceAbort)) throw err;
      this.#broken = err.message;
      throw new RegexEngineError(
        `re2-wasm aborted during ${what} even with ${JSON.stringify(this.source)} alone (${err.message})`,
      );
    }
  }

  ok(): boolean {
    return this.#call('compile', (r) => r.ok());
  }

  error(): string {
    return this.#call('compile', (r) => r.error());
  }

  pattern(): string {
    return this.#call('pattern', (r) => r.pattern());
  }

  /**
   * `raw.match`; throws `RegexMatchAbortError` when the engine aborts on this subject even with the program
   * alone in a fresh instance (every other program keeps working).
   */
  match(input: string | Uint8Array, start: number, getCapturingGroups: boolean): RawMatch {
    try {
      return this.#call('match', (r) => r.match(input, start, getCapturingGroups));
    } catch (err) {
      if (!(err instanceof RegexEngineError) || this.#broken === null) throw err;
      const bytes = typeof input === 'string' ? input.length : input.length;
      throw new RegexMatchAbortError(this.source, bytes, this.#broken);
    }
  }

  /** Group index (1-based) → name, read from the map copy, which is deleted before returning. */
  groupNames(): Map<number, string> {
    return this.#call('capturingGroupNames', (raw) => {
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

  /** Frees the program (idempotent). */
  delete(): void {
    if (this.#deleted) return;
    this.#deleted = true;
    const inst = this.#inst;
    const raw = this.#raw;
    this.unbind();
    if (inst === null || raw === null || inst.dead !== null) return;
    inst.programs.delete(this);
    try {
      within(inst, 'delete', () => raw.delete(), null);
    } catch (err) {
      if (!(err instanceof InstanceAbort)) throw err;
    }
    inst.release();
  }

  /** @internal which instance holds the program (for tests), or null. */
  instanceId(): number | null {
    return this.#inst?.id ?? null;
  }
}

/** Compiles `p` alone in a fresh instance: open (it takes later programs too) or dedicated to `p`. */
function placeAlone(p: Re2Program, dedicated: boolean): void {
  const inst = new Instance(!dedicated);
  try {
    p.bindTo(inst);
  } finally {
    if (!dedicated && inst.dead === null) setOpen(inst);
    inst.release();
  }
}

/** Compiles `p` into the open instance, or alone in a fresh one if that aborts. Throws InstanceAbort. */
function place(p: Re2Program): void {
  try {
    p.bindTo(open());
  } catch (err) {
    if (!(err instanceof InstanceAbort)) throw err;
    placeAlone(p, false);
  }
}

/**
 * Compiles `source` into the open instance. If that aborts, the instance's other programs are re-homed and the
 * pattern is retried alone; aborting even then throws `RegexTooLargeError` (it can never run). The returned
 * program may still be `!ok()` (an RE2 syntax error): the caller checks and deletes it.
 */
export function compileProgram(source: string, ignoreCase: boolean, dotAll: boolean): Re2Program {
  const p = new Re2Program(source, ignoreCase, dotAll);
  try {
    place(p);
    return p;
  } catch (err) {
    if (!(err instanceof InstanceAbort)) throw err;
    throw new RegexTooLargeError(source, err.message);
  }
}

/**
 * A program compiled into an instance on its first use (deferred-compile.ts says when that is sound): until then
 * no engine instance is needed. A failure then is a RegexEngineError from the call that needed it.
 */
export function deferredProgram(source: string, ignoreCase: boolean, dotAll: boolean): Re2Program {
  return new Re2Program(source, ignoreCase, dotAll, true);
}

/** Compiles without any translation, as an embind handle in the open instance. For tests of raw RE2 behaviour. */
export function newRawRE2(pattern: string, ignoreCase: boolean, dotAll: boolean): RawRE2 {
  const inst = open();
  return within(inst, 'compile', () => new inst.mod.WrappedRE2(pattern, ignoreCase, false, dotAll), null);
}

export interface HeapProbe {
  /** Total linear memory of the open instance: fixed at 16 MiB in re2-wasm 1.0.2 (no ALLOW_MEMORY_GROWTH). */
  heapBytes: number;
  /**
   * Address malloc returns for a 1 MiB block (freed at once). A leak pushes fresh blocks to higher addresses, so
   * comparing this before/after a workload shows heap growth. Only call it when at least 1 MiB is free:
   * a failed malloc aborts the instance (it is then replaced like any other aborted one).
   */
  probe1MiBAddress: number;
  /** Live emval handles (JS values held by WASM); should stay flat. */
  emvalHandles: number;
}

/** Diagnostics for tests and measurement scripts, on the open instance. */
export function heapProbe(): HeapProbe {
  const inst = open();
  return within(
    inst,
    'heapProbe',
    () => {
      const p = inst.mod._malloc(1 << 20);
      inst.mod._free(p);
      return { heapBytes: inst.mod.HEAPU8.length, probe1MiBAddress: p, emvalHandles: inst.mod.count_emval_handles() };
    },
    null,
  );
}

export interface EngineStats {
  /** Module instances loaded so far (the first one included). */
  instancesLoaded: number;
  /** Live instances and the programs they hold. */
  live: { id: number; open: boolean; programs: number }[];
  /** Instance aborts contained so far, and the last one's reason. */
  aborts: number;
  lastAbort: string | null;
  /** Compiles done, including recompiles after an abort. */
  compiles: number;
  /** The last few lines the glue printed (abort explanations), newest last. */
  warnings: readonly string[];
}

export function engineStats(): EngineStats {
  const live = [...liveInstances];
  return {
    instancesLoaded: stats.instancesLoaded,
    live: live.map((i) => ({ id: i.id, open: i.open, programs: i.programs.size })),
    aborts: stats.aborts,
    lastAbort,
    compiles: stats.rebinds,
    warnings: [...warnings],
  };
}
