/**
 * The host side of the condition VM: instantiates the WebAssembly module (only import:
 * `env.abort`), writes programs and variables straight into its linear memory, reads results
 * back, and recovers from traps (a MemoryError from the bounded arena, or anything else) by
 * re-instantiating, so the next evaluation always starts clean. Every number it shares with the
 * VM (value tags, outcomes, layouts) comes from the contract, assembly/opcodes.ts.
 */
import * as Op from '../../assembly/opcodes.js';
import { slotKeysOf } from './capture-keys.js';
import { checkVars, checkVarsList, ConditionVarsError, type ConditionVars } from './vars.js';
import { VM_WASM_BASE64 } from './vm-wasm.generated.js';
import { base64Bytes } from '../text/base64.js';

export type { ConditionVars } from './vars.js';

// The contract's numbers that the batch path reads per variable set, bound once here: read as `Op.*` (a
// module namespace's properties) in those loops they cost 3–6 % of a whole batch evaluation (side by side,
// 4,096-set batches).
const EXIT_CODE_AT = Op.INPUT_EXIT_CODE;
const WALLTIME_SEC_AT = Op.INPUT_WALLTIME_SEC;
const PEAK_VRAM_MIB_AT = Op.INPUT_PEAK_VRAM_MIB;
const CAPTURE_COUNT_AT = Op.INPUT_CAPTURE_COUNT;
const HEADER_WORDS = Op.INPUT_HEADER_WORDS;
const SLOT_ABSENT = Op.SLOT_ABSENT;
const BATCH_TRUTHY = Op.BATCH_TRUTHY;

/** Variable sets per VM call in a batch. */
const BATCH_CHUNK = 512;

/** Default arena limit: the most linear memory one VM instance may use. */
export const DEFAULT_HEAP_LIMIT_BYTES = 256 * 1024 * 1024;
/** Below this the VM cannot hold its own tables and a program. */
export const MIN_HEAP_LIMIT_BYTES = 1024 * 1024;
/** The module's declared maximum memory (asconfig.json `maximumMemory`, 16384 pages). */
export const MAX_HEAP_LIMIT_BYTES = 1024 * 1024 * 1024;
/** Cost units per evaluation unless set (the contract's default; see docs/bytecode.md). */
export const DEFAULT_COST_BUDGET = Op.DEFAULT_COST_BUDGET;
/**
 * Linear memory an instance may keep after an evaluation. WebAssembly memory cannot shrink, so an
 * evaluation that grew it past this (a huge capture) is followed by a fresh instance, and the
 * process gives the memory back instead of holding its high-water mark for good. Not lower: the
 * next evaluation in a fresh instance touches its pages anew, and first touches are costly (64 MiB
 * took ~340 ms here), so at 32 MiB a 19-way concat of a 64 KiB capture (~50 MB of strings) paid
 * that on every call: ~230 ms instead of ~10.
 */
export const RETAINED_MEMORY_BYTES = 96 * 1024 * 1024;

export interface VmOptions {
  /** Most linear memory the VM may use before a condition gets MemoryError. */
  heapLimitBytes?: number;
  /** Cost units one evaluation may spend before it gets BudgetExceeded. */
  costBudget?: number;
}

/** An option outside what the VM can honour. */
export class VmOptionError extends RangeError {
  override name = 'VmOptionError';
  constructor(
    readonly option: keyof VmOptions,
    reason: string,
  ) {
    super(`${option} ${reason}`);
  }
}

/** The options with their defaults, checked: an integer within the range the VM can honour. */
export function checkVmOptions(options: VmOptions): Required<VmOptions> {
  const heap = options.heapLimitBytes ?? DEFAULT_HEAP_LIMIT_BYTES;
  if (
    typeof heap !== 'number' ||
    !Number.isInteger(heap) ||
    heap < MIN_HEAP_LIMIT_BYTES ||
    heap > MAX_HEAP_LIMIT_BYTES
  ) {
    throw new VmOptionError(
      'heapLimitBytes',
      `must be an integer from ${MIN_HEAP_LIMIT_BYTES} (1 MiB) to ${MAX_HEAP_LIMIT_BYTES} (1 GiB), got ${String(heap)}`,
    );
  }
  const budget = options.costBudget ?? DEFAULT_COST_BUDGET;
  if (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < 1) {
    throw new VmOptionError('costBudget', `must be a positive integer (cost units), got ${String(budget)}`);
  }
  return { heapLimitBytes: heap, costBudget: budget };
}

/** A value read back from the VM, still untyped for repr purposes. */
export type VmValue =
  | { tag: 'None' }
  | { tag: 'Ellipsis' }
  | { tag: 'dict' }
  | { tag: 'bool'; value: boolean }
  | { tag: 'int'; value: bigint | null } // null: beyond CPython's 4300-digit int→str limit
  | { tag: 'float'; value: number }
  | { tag: 'complex'; re: number; im: number }
  /** `codePoints` holds at most the read limit's first code points of `length`. */
  | { tag: 'str'; codePoints: number[]; length: number }
  /** `value` holds at most the read limit's first bytes of `length`. */
  | { tag: 'bytes'; value: Uint8Array; length: number }
  | { tag: 'builtin'; id: number };

export type VmOutcome = { ok: true; value: VmValue; truthy: boolean } | { ok: false; error: string };

/** A program the VM's verifier refused: a compiler bug or a hand-made hostile program. */
export class VerifyError extends Error {
  override name = 'VerifyError';
  constructor(readonly code: number) {
    super(`the VM rejected the program: ${Op.VERIFY_MESSAGES[code] ?? `code ${code}`}`);
  }
}

/** The module's exports this host uses (the contract's scalars are exported too, as globals). */
export interface VmExports {
  memory: WebAssembly.Memory;
  programBuffer(words: number): number;
  loadProgram(): number;
  verifiedDepth(): number;
  inputBuffer(words: number): number;
  setInputs(words: number, at: number): number;
  singleInputBuffer(): number;
  singleInputWords(): number;
  evaluateOnce(exitCode: number, walltime: number, peakVram: number, nCaptures: number): number;
  run(): number;
  runBatch(words: number, count: number, out: number): void;
  resultTruthy(): number;
  resultBigDecimal(): number;
  resultTag(): number;
  resultNum(): bigint;
  resultRef(): number;
  setCostBudget(units: bigint): void;
  costSpent(): bigint;
  contractTableCount(): number;
  contractTableLength(t: number): number;
  contractTable(t: number, i: number): number;
  arenaMark(): number;
  arenaRelease(mark: number): void;
  arenaSetLimit(bytes: number): void;
  arenaExhausted(): number;
}

let compiled: WebAssembly.Module | null = null;

function vmModule(): WebAssembly.Module {
  if (compiled === null) compiled = new WebAssembly.Module(base64Bytes(VM_WASM_BASE64));
  return compiled;
}

/** The module's imports, for the test that pins them to `env.abort`. */
export function vmImports(): WebAssembly.ModuleImportDescriptor[] {
  return WebAssembly.Module.imports(vmModule());
}

class VmAbort extends Error {}

function newInstance(): WebAssembly.Instance {
  return new WebAssembly.Instance(vmModule(), {
    env: {
      abort: () => {
        throw new VmAbort('abort');
      },
    },
  });
}

/** A fresh instance's exports, for the test that the wasm's contract equals the host's. */
export function vmExportsForTest(): VmExports & Record<string, unknown> {
  return newInstance().exports as unknown as VmExports & Record<string, unknown>;
}

/**
 * One VM instance. It holds one loaded program at a time; `load` switches programs cheaply
 * (the previous one's memory is released), so many compiled conditions can share an instance.
 */
export class ConditionVM {
  private ex!: VmExports;
  private current: Int32Array | null = null;
  /** The loaded program's capture slots (capture-keys.ts), or null when it reads capture as a dict. */
  private slots: readonly string[] | null = null;
  private programMark = 0;
  private words = new Int32Array(0);
  /** The VM's single-call capture area: first word index and one past its last. */
  private singleAt = 0;
  private singleEnd = 0;
  private readonly heapLimitBytes: number;
  private costBudget: number;

  constructor(options: VmOptions | number = {}) {
    const checked = checkVmOptions(typeof options === 'number' ? { heapLimitBytes: options } : options);
    this.heapLimitBytes = checked.heapLimitBytes;
    this.costBudget = checked.costBudget;
    this.instantiate();
  }

  private instantiate(): void {
    this.ex = newInstance().exports as unknown as VmExports;
    this.singleAt = this.ex.singleInputBuffer() >> 2;
    this.singleEnd = this.singleAt + this.ex.singleInputWords();
    this.ex.arenaSetLimit(this.heapLimitBytes);
    this.ex.setCostBudget(BigInt(this.costBudget));
    this.current = null;
    this.words = new Int32Array(0); // the old instance's memory is not detached: drop its view
  }

  /** Sets the cost budget of later evaluations (checked as the option is). */
  setCostBudget(units: number): void {
    if (units === this.costBudget) return;
    this.costBudget = checkVmOptions({ heapLimitBytes: this.heapLimitBytes, costBudget: units }).costBudget;
    this.ex.setCostBudget(BigInt(units));
  }

  /** Linear memory the instance holds now, in bytes. */
  memoryBytes(): number {
    return this.ex.memory.buffer.byteLength;
  }

  /** Cost units the last evaluation spent. */
  lastCost(): number {
    return Number(this.ex.costSpent());
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
    if (code !== Op.V_OK) throw new VerifyError(code);
    this.slots = slotsOf(program);
    this.current = program;
    this.programMark = this.ex.arenaMark();
  }

  /** The deepest stack the verifier found the loaded program to reach. */
  verifiedDepth(): number {
    return this.ex.verifiedDepth();
  }

  /**
   * Runs `body`; a trap becomes MemoryError (arena exhausted) or an internal error, and the
   * instance is replaced so the next call starts from a clean one — as it is after an evaluation
   * that grew memory past RETAINED_MEMORY_BYTES.
   */
  private guarded<T>(program: Int32Array, body: () => T, onTrap: (error: string) => T): T {
    this.load(program);
    try {
      return body();
    } catch (e) {
      return onTrap(this.recover(e));
    } finally {
      this.release();
    }
  }

  /** After a trap: which error it stands for, with the instance replaced; anything else is rethrown. */
  private recover(e: unknown): 'MemoryError' | 'SystemError' {
    if (!(e instanceof WebAssembly.RuntimeError) && !(e instanceof VmAbort) && !(e instanceof RangeError)) throw e;
    const exhausted = this.safeExhausted();
    this.instantiate();
    return exhausted ? 'MemoryError' : 'SystemError';
  }

  /** After every evaluation: a fresh instance when this one grew past RETAINED_MEMORY_BYTES. */
  private release(): void {
    // The cached view knows the size it was made at; growth after it detaches it (length 0), and
    // only then is `memory.buffer` (costly to read on every call) worth reading.
    const w = this.words;
    if (
      w.byteLength > RETAINED_MEMORY_BYTES ||
      (w.length === 0 && this.ex.memory.buffer.byteLength > RETAINED_MEMORY_BYTES)
    )
      this.instantiate();
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
  private writeInputs(list: readonly ConditionVars[], from: number, to: number, batch: boolean): number {
    // One pass into a reusable scratch array, then one copy into linear memory: cheaper than
    // sizing the buffer with a second pass over every capture.
    const words = encodeVars(list, from, to, this.slots, batch);
    const ptr = this.ex.inputBuffer(words);
    const mem = this.memWords();
    if (words <= 64) {
      // A single evaluation's few words: a loop beats allocating a subarray view for set().
      for (let i = 0, at = ptr >> 2; i < words; i++) mem[at + i] = scratch[i]!;
    } else mem.set(scratch.subarray(0, words), ptr >> 2);
    return ptr;
  }

  /**
   * The value or the exception. The captures are laid out as the program reads them (its capture
   * slots, capture-keys.ts, or every entry); `readLimit`: the most code points or bytes of a str or
   * bytes result to read back (its length is always reported).
   */
  evaluate(program: Int32Array, vars: ConditionVars, readLimit = Infinity): VmOutcome {
    return this.guarded<VmOutcome>(
      program,
      () => {
        const r = this.runOnce(vars);
        if (r < 0) return { ok: false, error: Op.ERROR_NAMES[-r] ?? 'SystemError' };
        return { ok: true, value: this.readResult(readLimit), truthy: r === 1 };
      },
      (error) => ({ ok: false, error }),
    );
  }

  /**
   * The spec's `evaluate`: only truthiness, without reading the value back. The hot path of
   * single evaluation, so `guarded` is written out here: no closure per call.
   */
  evaluateTruthy(program: Int32Array, vars: ConditionVars): boolean {
    this.load(program);
    try {
      return this.runOnce(vars) === 1;
    } catch (e) {
      this.recover(e);
      return false;
    } finally {
      this.release();
    }
  }

  /**
   * Checks and writes one variable set and runs the loaded program on it: 1 or 0 (truthiness) or
   * -E_*. The captures go straight into the VM's single-call area through the cached view and the
   * scalars cross as arguments, so the common case is one call into the VM; a capture set too big
   * for the area takes a buffer of its own.
   */
  private runOnce(vars: ConditionVars): number {
    const v = vars;
    if (v === null || typeof v !== 'object') throwVarsError(v, 0, false);
    const exit = v.exit_code,
      wall = v.walltime_sec,
      vram = v.peak_vram_mib;
    if (!Number.isSafeInteger(exit) || typeof wall !== 'number' || (vram !== null && !Number.isSafeInteger(vram)))
      throwVarsError(v, 0, false);
    const cap = v.capture;
    const slots = this.slots;
    if (nothingToEncode(cap, slots)) return this.ex.evaluateOnce(exit, wall, vram ?? 0, 0);
    target = this.memWords();
    targetEnd = this.singleEnd;
    let r: EncodedCapture | null;
    try {
      r = encodeCapture(cap, this.singleAt, slots);
    } finally {
      target = null;
    }
    if (r !== null) return this.ex.evaluateOnce(exit, wall, vram ?? 0, r.count);
    this.ex.arenaRelease(this.programMark);
    this.ex.setInputs(this.writeInputs([vars], 0, 1, false), 0);
    const err = this.ex.run();
    if (err !== Op.E_OK) return -err;
    return this.ex.resultTruthy() !== 0 ? 1 : 0;
  }

  /**
   * Fired or not for each variable set (errors count as not fired), in VM calls of up to
   * BATCH_CHUNK sets: chunks keep the input buffer in cache, which is faster than one huge call.
   */
  evaluateBatch(program: Int32Array, list: readonly ConditionVars[]): boolean[] {
    checkVarsList(list);
    if (list.length === 0) return [];
    return this.guarded(
      program,
      () => {
        // Sized up front and filled by index: push cost 6–9 ns per set here (its growth copies),
        // about a fifth of a simple condition's whole batch time; assignment costs ~2.5. V8 marks such an
        // array holey, but every index is filled before it is returned.
        const result = new Array<boolean>(list.length);
        for (let from = 0; from < list.length; from += BATCH_CHUNK) {
          const to = Math.min(list.length, from + BATCH_CHUNK);
          this.ex.arenaRelease(this.programMark);
          const ptr = this.writeInputs(list, from, to, true);
          const out = this.ex.inputBuffer((to - from + 3) >> 2);
          this.ex.runBatch(ptr, to - from, out);
          const fired = new Uint8Array(this.ex.memory.buffer, out, to - from);
          for (let i = from; i < to; i++) result[i] = fired[i - from] === BATCH_TRUTHY;
        }
        return result;
      },
      // A trap mid-batch (one greedy variable set): fall back to one call each.
      () => list.map((v) => this.evaluateTruthy(program, v)),
    );
  }

  /**
   * Like `evaluateBatch`, but what happened to each set: Op.BATCH_FALSY, Op.BATCH_TRUTHY, or Op.BATCH_RAISED + E_*
   * (the exception, `Op.ERROR_NAMES[code - BATCH_RAISED]`), so a caller can say how often a condition raised.
   */
  evaluateBatchOutcomes(program: Int32Array, list: readonly ConditionVars[]): Uint8Array {
    checkVarsList(list);
    const result = new Uint8Array(list.length);
    if (list.length === 0) return result;
    return this.guarded(
      program,
      () => {
        for (let from = 0; from < list.length; from += BATCH_CHUNK) {
          const to = Math.min(list.length, from + BATCH_CHUNK);
          this.ex.arenaRelease(this.programMark);
          const ptr = this.writeInputs(list, from, to, true);
          const out = this.ex.inputBuffer((to - from + 3) >> 2);
          this.ex.runBatch(ptr, to - from, out);
          result.set(new Uint8Array(this.ex.memory.buffer, out, to - from), from);
        }
        return result;
      },
      () => Uint8Array.from(list, (v) => this.evaluateOutcome(program, v)),
    );
  }

  /** One set's outcome as `evaluateBatchOutcomes` codes it (a trap: MemoryError or SystemError). */
  private evaluateOutcome(program: Int32Array, vars: ConditionVars): number {
    this.load(program);
    try {
      const r = this.runOnce(vars);
      return r < 0 ? Op.BATCH_RAISED - r : r === 1 ? Op.BATCH_TRUTHY : Op.BATCH_FALSY;
    } catch (e) {
      const error = this.recover(e);
      return Op.BATCH_RAISED + (error === 'MemoryError' ? Op.E_MEMORY : Op.E_NO_PROGRAM);
    } finally {
      this.release();
    }
  }

  private readResult(limit: number): VmValue {
    const tag = this.ex.resultTag();
    const num = this.ex.resultNum();
    const ref = this.ex.resultRef();
    switch (tag) {
      case Op.T_NONE:
        return { tag: 'None' };
      case Op.T_ELLIPSIS:
        return { tag: 'Ellipsis' };
      case Op.T_DICT:
        return { tag: 'dict' };
      case Op.T_BOOL:
        return { tag: 'bool', value: num !== 0n };
      case Op.T_INT:
        return { tag: 'int', value: num };
      case Op.T_BIG: {
        // resultBigDecimal allocates, which may grow (and so detach) memory: read the buffer after it.
        const s = this.ex.resultBigDecimal();
        return { tag: 'int', value: s === 0 ? null : BigInt(readString(this.ex.memory.buffer, s)) };
      }
      case Op.T_FLOAT:
        return { tag: 'float', value: new Float64Array(new BigInt64Array([num]).buffer)[0]! };
      case Op.T_COMPLEX: {
        const f = new Float64Array(this.ex.memory.buffer.slice(ref, ref + 16));
        return { tag: 'complex', re: f[0]!, im: f[1]! };
      }
      case Op.T_STR: {
        // A str is a length word followed by its code points.
        const mem = this.ex.memory.buffer;
        const n = new Int32Array(mem, ref, 1)[0]!;
        return { tag: 'str', codePoints: Array.from(new Int32Array(mem, ref + 4, Math.min(n, limit))), length: n };
      }
      case Op.T_BYTES: {
        const mem = this.ex.memory.buffer;
        const n = objectSize(mem, ref);
        return { tag: 'bytes', value: new Uint8Array(mem.slice(ref, ref + Math.min(n, limit))), length: n };
      }
      case Op.T_BUILTIN:
        return { tag: 'builtin', id: Number(num) };
      default:
        throw new Error(`VM returned unknown value tag ${tag}`);
    }
  }
}

/** An AssemblyScript object's payload size, from its header. */
function objectSize(mem: ArrayBuffer, ptr: number): number {
  return new DataView(mem).getUint32(ptr - Op.OBJECT_SIZE_OFFSET, true);
}

/** An AssemblyScript (UTF-16) string object. */
function readString(mem: ArrayBuffer, ptr: number): string {
  const units = new Uint16Array(mem, ptr, objectSize(mem, ptr) >> 1);
  let out = '';
  for (let i = 0; i < units.length; i += 8192) out += String.fromCharCode(...units.subarray(i, i + 8192));
  return out;
}

/** Each program's capture slots, decoded once: a scan switches between its conditions' programs. */
const slotCache = new WeakMap<Int32Array, readonly string[] | null>();
function slotsOf(program: Int32Array): readonly string[] | null {
  let slots = slotCache.get(program);
  if (slots === undefined) {
    slots = slotKeysOf(program);
    slotCache.set(program, slots);
  }
  return slots;
}

/** Encoding scratch space, grown as needed and reused across calls, and its f64 view. */
let scratch = new Int32Array(1024);
let scratchF64 = new Float64Array(scratch.buffer);
/**
 * Where encodeCapture writes: null for `scratch` (grown as needed), or a fixed region of linear
 * memory ending (exclusive) at word `targetEnd`, which refuses a capture set that does not fit.
 */
let target: Int32Array | null = null;
let targetEnd = 0;

/**
 * Writes one capture entry at word `at`: key and value, or for a slot (`k` null) the value or SLOT_ABSENT
 * (`value` null). Returns the word after it, or -1 when the fixed target has no room.
 */
function putEntry(k: string | null, value: string | null, at: number): number {
  // UTF-16 length bounds the code point count
  const need = at + (k === null ? 0 : 1 + k.length) + (value === null ? 1 : 1 + value.length);
  let out: Int32Array;
  if (target === null) {
    reserve(need);
    out = scratch;
  } else {
    if (need > targetEnd) return -1;
    out = target;
  }
  if (k !== null) at = putString(out, at, k);
  if (value !== null) return putString(out, at, value);
  out[at] = SLOT_ABSENT;
  return at + 1;
}

function reserve(words: number): void {
  if (words <= scratch.length) return;
  const bigger = new Int32Array(Math.max(words + (words & 1), scratch.length * 2)); // even, for the f64 view
  bigger.set(scratch);
  scratch = bigger;
  scratchF64 = new Float64Array(scratch.buffer);
}

/**
 * Checks and writes variable sets in the layout `setInputs` reads (Op.INPUT_*) for a program with capture
 * slots `slots` (null: one that reads capture as a dict), strings as code points, into `scratch`; returns
 * the number of words written. A malformed set throws ConditionVarsError (naming its index in a batch)
 * before the VM sees anything.
 */
function encodeVars(
  list: readonly ConditionVars[],
  from: number,
  to: number,
  slots: readonly string[] | null,
  batch: boolean,
): number {
  let at = 0;
  for (let i = from; i < to; i++) {
    const v = list[i]!;
    // Number.isSafeInteger is false for non-numbers (it never coerces), so
    // these three tests are the whole scalar check on the hot path; checkVars words the error.
    if (v === null || typeof v !== 'object') throwVarsError(v, i, batch);
    const exit = v.exit_code,
      wall = v.walltime_sec,
      vram = v.peak_vram_mib;
    if (!Number.isSafeInteger(exit) || typeof wall !== 'number' || (vram !== null && !Number.isSafeInteger(vram)))
      throwVarsError(v, i, batch);
    reserve(at + HEADER_WORDS);
    // `at` is even (every set is padded to an even length), so the f64s are aligned.
    const f = scratchF64;
    f[(at + EXIT_CODE_AT) >> 1] = exit;
    f[(at + WALLTIME_SEC_AT) >> 1] = wall;
    f[(at + PEAK_VRAM_MIB_AT) >> 1] = vram ?? 0;
    const countAt = at + CAPTURE_COUNT_AT;
    at += HEADER_WORDS;
    const cap = v.capture;
    if (slots !== null && typeof cap === 'object' && cap !== null && !(cap instanceof Map) && !Array.isArray(cap)) {
      // encodeCapture's plain-object path written out: the common case of a batch (a regex's groups, read by
      // constant keys) without its call, its try and its fixed-target test, which cost 5–7 % of a whole
      // capture-reading evaluation.
      const rec = cap as Record<string, unknown>;
      for (let j = 0; j < slots.length; j++) {
        const value = ownSlotValue(rec, slots[j]!, i, batch);
        if (value === null) {
          reserve(at + 1);
          scratch[at++] = SLOT_ABSENT; // KeyError in the VM
        } else {
          reserve(at + 1 + value.length);
          at = putString(scratch, at, value);
        }
      }
      scratch[countAt] = slots.length;
    } else {
      try {
        const r = encodeCapture(cap, at, slots)!; // the scratch target always has room
        at = r.at;
        scratch[countAt] = r.count;
      } catch (e) {
        throw batch ? atIndex(e, i) : e;
      }
    }
    if ((at & 1) !== 0) {
      reserve(at + 1); // the padding word that keeps the next set aligned
      at++;
    }
  }
  return at;
}

/**
 * The words `evaluateBatch` would hand the VM for `list` (a copy), for the tests of the input layout. It starts
 * from a fresh, small scratch space, so that a long capture grows it mid-batch.
 */
export function encodeVarsForTest(list: readonly ConditionVars[], slots: readonly string[] | null): Int32Array {
  scratch = new Int32Array(1024);
  scratchF64 = new Float64Array(scratch.buffer);
  const words = encodeVars(list, 0, list.length, slots, true); // first: it may replace `scratch`
  return scratch.slice(0, words);
}

/**
 * Whether a capture needs no encoding at all: the program reads no capture, and it is a plain
 * object, whose entries need no check (a Map's entries are checked as they are read, so a Map
 * takes encodeCapture, as does anything that is not a mapping, to be refused there).
 */
function nothingToEncode(cap: unknown, slots: readonly string[] | null): boolean {
  return (
    slots !== null &&
    slots.length === 0 &&
    typeof cap === 'object' &&
    cap !== null &&
    !Array.isArray(cap) &&
    !(cap instanceof Map)
  );
}

/** Throws checkVars' error for a set the fast test refused (of set `i`, in a batch). */
function throwVarsError(v: unknown, i: number, batch: boolean): never {
  try {
    checkVars(v, '', false);
  } catch (e) {
    throw batch ? atIndex(e, i) : e;
  }
  throw new Error('unreachable: checkVars accepted a set the fast test refused');
}

/** The error of set `i` of a batch, named as such. */
function atIndex(e: unknown, i: number): unknown {
  return e instanceof ConditionVarsError ? new ConditionVarsError(`[${i}].${e.field}`, e.reason) : e;
}

interface EncodedCapture {
  at: number;
  count: number;
}
const encoded: EncodedCapture = { at: 0, count: 0 };

/**
 * Writes the captures for a program with capture slots `slots` (one value or SLOT_ABSENT a slot), or
 * for one that reads capture as a dict (null: every entry, own properties only, in insertion order),
 * checking each value written is a str (a Map's entries are all checked: they are read anyway).
 * Values the condition cannot read are not inspected: they cannot change its outcome, and checking
 * them would cost batch evaluation about as much as evaluating (a plain object's keys must be
 * enumerated to find them). Returns where it ended and how many entries it wrote, or null when a
 * fixed target is too small.
 */
function encodeCapture(cap: unknown, at: number, slots: readonly string[] | null): EncodedCapture | null {
  let n = 0;
  if (cap instanceof Map) {
    for (const [k, value] of cap as Map<unknown, unknown>) {
      if (typeof k !== 'string') throw new ConditionVarsError('capture', `keys must be strings, got ${typeof k}`);
      if (typeof value !== 'string') throw badValue(k, value);
      if (slots !== null) continue;
      at = putEntry(k, value, at);
      if (at < 0) return null;
      n++;
    }
    if (slots !== null) {
      const map = cap as Map<string, string>;
      for (let j = 0; j < slots.length; j++) {
        at = putEntry(null, map.get(slots[j]!) ?? null, at);
        if (at < 0) return null;
      }
      n = slots.length;
    }
  } else {
    if (typeof cap !== 'object' || cap === null || Array.isArray(cap)) {
      throw new ConditionVarsError(
        'capture',
        `must be an object or a Map of strings, got ${cap === null ? 'null' : Array.isArray(cap) ? 'an array' : typeof cap}`,
      );
    }
    const rec = cap as Record<string, unknown>;
    if (slots === null) {
      for (const k in rec) {
        if (!Object.hasOwn(rec, k)) continue; // inherited (a polluted prototype) is not a capture
        const value = rec[k];
        if (typeof value !== 'string') throw badValue(k, value);
        at = putEntry(k, value, at);
        if (at < 0) return null;
        n++;
      }
    } else {
      for (let j = 0; j < slots.length; j++) {
        at = putEntry(null, ownSlotValue(rec, slots[j]!, 0, false), at);
        if (at < 0) return null;
      }
      n = slots.length;
    }
  }
  encoded.at = at;
  encoded.count = n;
  return encoded;
}

/**
 * A plain object's value for slot key `k`: its own str, or null when it has no own `k` (KeyError in the VM;
 * an inherited one, from a polluted prototype, is not a capture). Any other value is refused (naming set `i`
 * of a batch).
 */
function ownSlotValue(rec: Record<string, unknown>, k: string, i: number, batch: boolean): string | null {
  if (!Object.hasOwn(rec, k)) return null;
  const value = rec[k];
  if (typeof value !== 'string') throw batch ? atIndex(badValue(k, value), i) : badValue(k, value);
  return value;
}

function badValue(k: string, v: unknown): ConditionVarsError {
  const shown = k.length > 40 ? `${k.slice(0, 40)}…` : k;
  return new ConditionVarsError(
    `capture['${shown}']`,
    `must be a string, got ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`,
  );
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
