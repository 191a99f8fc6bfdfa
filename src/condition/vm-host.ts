/**
 * The host side of the condition VM: instantiates the WebAssembly module (only import:
 * `env.abort`), writes programs and variables straight into its linear memory, reads results
 * back, and recovers from traps (a MemoryError from the bounded arena, or anything else) by
 * re-instantiating, so the next evaluation always starts clean.
 */
import { VM_WASM_BASE64 } from './vm-wasm.generated.js';

// Value tags and outcomes, as assembly/vm.ts numbers them.
const T_NONE = 0, T_BOOL = 1, T_INT = 2, T_BIG = 3, T_FLOAT = 4, T_COMPLEX = 5, T_STR = 6, T_BYTES = 7,
  T_ELLIPSIS = 8, T_DICT = 9, T_BUILTIN = 10;
const ERROR_CLASSES = ['', 'TypeError', 'ValueError', 'ZeroDivisionError', 'KeyError', 'OverflowError', 'MemoryError'];
const VERIFY_ERRORS = ['', 'bad header', 'unknown opcode', 'argument out of range', 'bad jump target', 'stack underflow or overflow', 'bad constant', 'truncated program'];

/** Variable sets per VM call in a batch. */
const BATCH_CHUNK = 512;

/** Default arena limit: the most linear memory one VM instance may use. */
export const DEFAULT_HEAP_LIMIT_BYTES = 256 * 1024 * 1024;

export interface ConditionVars {
  capture: Readonly<Record<string, string>>;
  exit_code: number;
  walltime_sec: number;
  /** null when unavailable: bound to 0, as the original's `evaluate` does. */
  peak_vram_mib: number | null;
}

/** A value read back from the VM, still untyped for repr purposes. */
export type VmValue =
  | { tag: 'None' } | { tag: 'Ellipsis' } | { tag: 'dict' }
  | { tag: 'bool'; value: boolean }
  | { tag: 'int'; value: bigint | null } // null: beyond CPython's 4300-digit int→str limit
  | { tag: 'float'; value: number }
  | { tag: 'complex'; re: number; im: number }
  | { tag: 'str'; codePoints: number[] }
  | { tag: 'bytes'; value: Uint8Array }
  | { tag: 'builtin'; id: number };

export type VmOutcome = { ok: true; value: VmValue; truthy: boolean } | { ok: false; error: string };

/** A program the VM's verifier refused: a compiler bug or a hand-made hostile program. */
export class VerifyError extends Error {
  override name = 'VerifyError';
  constructor(readonly code: number) {
    super(`the VM rejected the program: ${VERIFY_ERRORS[code] ?? `code ${code}`}`);
  }
}

interface VmExports {
  memory: WebAssembly.Memory;
  programBuffer(words: number): number;
  loadProgram(): number;
  inputBuffer(words: number): number;
  setInputs(words: number, at: number): number;
  run(): number;
  runBatch(words: number, count: number, out: number): void;
  resultTruthy(): number;
  resultBigDecimal(): number;
  resultTag: WebAssembly.Global;
  resultNum: WebAssembly.Global;
  resultRef: WebAssembly.Global;
  arenaMark(): number;
  arenaRelease(mark: number): void;
  arenaSetLimit(bytes: number): void;
  arenaExhausted(): number;
}

let compiled: WebAssembly.Module | null = null;

function vmModule(): WebAssembly.Module {
  if (compiled === null) {
    const bytes = Uint8Array.from(atob(VM_WASM_BASE64), (c) => c.charCodeAt(0));
    compiled = new WebAssembly.Module(bytes);
  }
  return compiled;
}

/** The module's imports, for the test that pins them to `env.abort`. */
export function vmImports(): WebAssembly.ModuleImportDescriptor[] {
  return WebAssembly.Module.imports(vmModule());
}

class VmAbort extends Error {}

/**
 * One VM instance. It holds one loaded program at a time; `load` switches programs cheaply
 * (the previous one's memory is released), so many compiled conditions can share an instance.
 */
export class ConditionVM {
  private ex!: VmExports;
  private current: Int32Array | null = null;
  private programMark = 0;
  private words = new Int32Array(0);

  constructor(private readonly heapLimitBytes = DEFAULT_HEAP_LIMIT_BYTES) {
    this.instantiate();
  }

  private instantiate(): void {
    const instance = new WebAssembly.Instance(vmModule(), {
      env: {
        abort: () => {
          throw new VmAbort('abort');
        },
      },
    });
    this.ex = instance.exports as unknown as VmExports;
    this.ex.arenaSetLimit(this.heapLimitBytes);
    this.current = null;
    this.words = new Int32Array(0); // the old instance's memory is not detached: drop its view
  }

  /** A view of linear memory as words, renewed only when the memory has grown. */
  private memWords(): Int32Array {
    // Growing memory detaches the old buffer (its views drop to length 0), and instantiate() resets the view:
    // reading `memory.buffer` on every call costs more than this test.
    if (this.words.length === 0) this.words = new Int32Array(this.ex.memory.buffer);
    return this.words;
  }

  /** Makes `program` the loaded one (verifying it); a no-op when it already is. */
  load(program: Int32Array): void {
    if (this.current === program) return;
    this.current = null;
    const ptr = this.ex.programBuffer(program.length);
    this.memWords().set(program, ptr >> 2);
    const code = this.ex.loadProgram();
    if (code !== 0) throw new VerifyError(code);
    this.current = program;
    this.programMark = this.ex.arenaMark();
  }

  /** Runs `body`; a trap becomes MemoryError (arena exhausted) or an internal error, and the
   *  instance is replaced so the next call starts from a clean one. */
  private guarded<T>(program: Int32Array, body: () => T, onTrap: (error: string) => T): T {
    this.load(program);
    try {
      return body();
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError) && !(e instanceof VmAbort) && !(e instanceof RangeError)) throw e;
      const exhausted = this.safeExhausted();
      this.instantiate();
      return onTrap(exhausted ? 'MemoryError' : 'SystemError');
    }
  }

  private safeExhausted(): boolean {
    try {
      return this.ex.arenaExhausted() !== 0;
    } catch {
      return false;
    }
  }

  /**
   * Encodes variable sets straight into a fresh VM buffer (no intermediate copy: this is the hot
   * path of batch evaluation); returns its address.
   */
  private writeInputs(list: readonly ConditionVars[], from = 0, to = list.length, keys: readonly string[] | null = null): number {
    // One pass into a reusable scratch array, then one copy into linear memory: cheaper than
    // sizing the buffer with a second pass over every capture.
    const words = encodeVars(list, from, to, keys);
    const ptr = this.ex.inputBuffer(words);
    const mem = this.memWords();
    if (words <= 64) {
      // A single evaluation's few words: a loop beats allocating a subarray view for set().
      for (let i = 0, at = ptr >> 2; i < words; i++) mem[at + i] = scratch[i]!;
    } else mem.set(scratch.subarray(0, words), ptr >> 2);
    return ptr;
  }

  evaluate(program: Int32Array, vars: ConditionVars): VmOutcome {
    return this.guarded<VmOutcome>(
      program,
      () => {
        this.ex.arenaRelease(this.programMark);
        this.ex.setInputs(this.writeInputs([vars]), 0);
        const err = this.ex.run();
        if (err !== 0) return { ok: false, error: ERROR_CLASSES[err] ?? 'SystemError' };
        return { ok: true, value: this.readResult(), truthy: this.ex.resultTruthy() !== 0 };
      },
      (error) => ({ ok: false, error }),
    );
  }

  /**
   * The spec's `evaluate`: only truthiness, without reading the value back. `keys`: the only
   * capture keys the program can read (capture-keys.ts), or null for all.
   */
  evaluateTruthy(program: Int32Array, vars: ConditionVars, keys: readonly string[] | null = null): boolean {
    return this.guarded(
      program,
      () => {
        this.ex.arenaRelease(this.programMark);
        this.ex.setInputs(this.writeInputs([vars], 0, 1, keys), 0);
        return this.ex.run() === 0 && this.ex.resultTruthy() !== 0;
      },
      () => false,
    );
  }

  /**
   * Fired or not for each variable set (errors count as not fired), in VM calls of up to
   * BATCH_CHUNK sets: chunks keep the input buffer in cache, which is faster than one huge call.
   */
  evaluateBatch(program: Int32Array, list: readonly ConditionVars[], keys: readonly string[] | null = null): boolean[] {
    if (list.length === 0) return [];
    return this.guarded(
      program,
      () => {
        const result = new Array<boolean>(list.length);
        for (let from = 0; from < list.length; from += BATCH_CHUNK) {
          const to = Math.min(list.length, from + BATCH_CHUNK);
          this.ex.arenaRelease(this.programMark);
          const ptr = this.writeInputs(list, from, to, keys);
          const out = this.ex.inputBuffer((to - from + 3) >> 2);
          this.ex.runBatch(ptr, to - from, out);
          const fired = new Uint8Array(this.ex.memory.buffer, out, to - from);
          for (let i = from; i < to; i++) result[i] = fired[i - from] !== 0;
        }
        return result;
      },
      // A trap mid-batch (one greedy variable set): fall back to one call each.
      () => list.map((v) => {
        const r = this.evaluate(program, v);
        return r.ok && r.truthy;
      }),
    );
  }

  private readResult(): VmValue {
    const tag = this.ex.resultTag.value as number;
    const num = this.ex.resultNum.value as bigint;
    const ref = this.ex.resultRef.value as number;
    const mem = this.ex.memory.buffer;
    switch (tag) {
      case T_NONE: return { tag: 'None' };
      case T_ELLIPSIS: return { tag: 'Ellipsis' };
      case T_DICT: return { tag: 'dict' };
      case T_BOOL: return { tag: 'bool', value: num !== 0n };
      case T_INT: return { tag: 'int', value: num };
      case T_BIG: {
        const s = this.ex.resultBigDecimal();
        return { tag: 'int', value: s === 0 ? null : BigInt(readString(mem, s)) };
      }
      case T_FLOAT: return { tag: 'float', value: new Float64Array(new BigInt64Array([num]).buffer)[0]! };
      case T_COMPLEX: {
        const f = new Float64Array(mem.slice(ref, ref + 16));
        return { tag: 'complex', re: f[0]!, im: f[1]! };
      }
      case T_STR: {
        // A str is a length word followed by its code points.
        const n = new Int32Array(mem, ref, 1)[0]!;
        return { tag: 'str', codePoints: Array.from(new Int32Array(mem, ref + 4, n)) };
      }
      case T_BYTES: return { tag: 'bytes', value: new Uint8Array(mem.slice(ref, ref + objectSize(mem, ref))) };
      case T_BUILTIN: return { tag: 'builtin', id: Number(num) };
      default: throw new Error(`VM returned unknown value tag ${tag}`);
    }
  }
}

/** An AssemblyScript object's payload size, from its header (rtSize sits 4 bytes before it). */
function objectSize(mem: ArrayBuffer, ptr: number): number {
  return new DataView(mem).getUint32(ptr - 4, true);
}

/** An AssemblyScript (UTF-16) string object. */
function readString(mem: ArrayBuffer, ptr: number): string {
  const units = new Uint16Array(mem, ptr, objectSize(mem, ptr) >> 1);
  let out = '';
  for (let i = 0; i < units.length; i += 8192) out += String.fromCharCode(...units.subarray(i, i + 8192));
  return out;
}

const scratchF64 = new Float64Array(1);
const scratchI32 = new Int32Array(scratchF64.buffer);

/** An integer JS number as the (low, high) words of an i64. */
function putI64(out: Int32Array, at: number, x: number): void {
  out[at] = x | 0;
  out[at + 1] = Math.floor(x / 4294967296) | 0;
}

/** Encoding scratch space, grown as needed and reused across calls. */
let scratch = new Int32Array(1024);

function reserve(words: number): void {
  if (words <= scratch.length) return;
  const bigger = new Int32Array(Math.max(words, scratch.length * 2));
  bigger.set(scratch);
  scratch = bigger;
}

/**
 * Writes variable sets in the layout `setInputs` reads (see assembly/vm.ts), strings as code
 * points, into `scratch`; returns the number of words written.
 */
function encodeVars(list: readonly ConditionVars[], from: number, to: number, keys: readonly string[] | null): number {
  let at = 0;
  for (let i = from; i < to; i++) {
    const v = list[i]!;
    reserve(at + 7);
    const out = scratch;
    putI64(out, at, v.exit_code);
    scratchF64[0] = v.walltime_sec;
    out[at + 2] = scratchI32[0]!;
    out[at + 3] = scratchI32[1]!;
    putI64(out, at + 4, v.peak_vram_mib ?? 0);
    const countAt = at + 6;
    at += 7;
    let n = 0;
    const cap = v.capture;
    if (keys === null) {
      for (const k in cap) {
        const value = cap[k]!;
        reserve(at + 2 + k.length + value.length); // UTF-16 length bounds the code point count
        at = putString(scratch, at, k);
        at = putString(scratch, at, value);
        n++;
      }
    } else {
      for (let j = 0; j < keys.length; j++) {
        const k = keys[j]!;
        const value = cap[k];
        // absent stays absent (KeyError in the VM); `in Object.prototype` keys need the own-property test
        if (value === undefined || (k in Object.prototype && !Object.hasOwn(cap, k))) continue;
        reserve(at + 2 + k.length + value.length);
        at = putString(scratch, at, k);
        at = putString(scratch, at, value);
        n++;
      }
    }
    scratch[countAt] = n;
  }
  return at;
}

/** A string as its length and code points (a surrogate pair is one code point, a lone one its own). */
function putString(out: Int32Array, at: number, s: string): number {
  const lenAt = at++;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out[at++] = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        continue;
      }
    }
    out[at++] = c;
  }
  out[lenAt] = at - lenAt - 1;
  return at;
}
