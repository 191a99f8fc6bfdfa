/**
 * `BytePrefilter`: one pass over a window's UTF-8 bytes, in the byte scanner (assembly/bytescan), that answers for
 * every pattern of a scan at once whether the window may hold a match, and counts the window's newlines.
 *
 * Why: the literal prefilter (regex/literals.ts) searches each pattern's literals in the window's text one
 * `indexOf` (or, case-insensitively, one RegExp) at a time: ten patterns made that half of a warm clean scan, the
 * case-insensitive Tier 4 NaN pattern a fifth alone, and counting lines with `indexOf` another sixth. One SIMD
 * pass (Teddy, see the module) finds them all; windows it clears never reach the text prefilter or RE2.
 *
 * Soundness (a skipped window must hold no match, as the text prefilter guarantees):
 *  1. Every match of a pattern contains, for each clause of its `LiteralSet`, one of the clause's strings
 *     (regex/literals.ts). So a window holding no string of some clause holds no match.
 *  2. Case-sensitive strings are searched as their UTF-8 bytes in the window's valid UTF-8 bytes: UTF-8 is
 *     self-synchronising, so the bytes occur exactly where the text holds the string.
 *  3. Case-insensitive strings (ASCII only: the text prefilter's rule, `foldsSafely`) are searched by lower-casing
 *     ASCII letters on both sides, which is Python's IGNORECASE when the text is ASCII too. A window with other
 *     characters could hold Python's extra equivalents (ſ for s, K for k, İ and ı for i), so there such a clause
 *     always counts as present.
 *  4. The search covers the whole window (its left context and overlap too): a superset of what the matcher looks
 *     at from its resume point, so presence is only over-reported. The text prefilter still runs after a "may".
 *  5. Literals past the records' capacity (MAX_LITERALS, the literal bytes' region) are found by many-literals.ts,
 *     exactly (its M3), under rules 2–4 alike; a pattern with one shorter than its gram gets no plan.
 */
import { foldsSafely, type LiteralSet } from '../regex/literals.js';
import { type ByteLiteral, GRAM, ManyLiterals } from './many-literals.js';
import {
  BUCKETS,
  CASE_INSENSITIVE,
  FINGERPRINT,
  FOUND,
  LITERAL_BYTES,
  LITERAL_BYTES_END,
  LITERALS,
  MAX_LITERALS,
  PADDING,
  RECORD_BYTES,
  RECORD_BYTES_AT,
  RECORD_FINGERPRINT,
  RECORD_FLAGS,
  RECORD_LENGTH,
  TEXT_BASE,
} from '../../assembly/bytescan/layout.js';
import { base64Bytes } from '../text/base64.js';
import { BYTESCAN_WASM_BASE64 } from './bytescan-wasm.generated.js';

interface ByteScanExports {
  readonly memory: WebAssembly.Memory;
  countNewlines(ptr: number, len: number): number;
  countTriples(ptr: number, len: number): void;
  tripleCount(a: number, b: number, c: number): number;
  findLiterals(ptr: number, len: number, count: number): number;
}

let compiled: WebAssembly.Module | null | undefined;

/** The byte scanner's module, or null where this WebAssembly lacks SIMD. */
function byteScanModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(base64Bytes(BYTESCAN_WASM_BASE64));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const utf8 = new TextEncoder();

/**
 * A pattern's clauses as literal indices — k ≥ 0 the byte scanner's record k, k < 0 literal -1-k of the overflow
 * (many-literals.ts) — and whether they are compared case-insensitively.
 */
interface PatternPlan {
  readonly clauses: readonly (readonly number[])[];
  readonly caseInsensitive: boolean;
}

/**
 * One instance of the byte scanner. Its memory holds the literal records, and from TEXT_BASE an arena: a buffer
 * the windower (byte-windows.ts) can keep a log's bytes in, so that each window is searched where it lies instead
 * of being copied in first (a copy of every byte scanned: 3–8 ms of a cold clean 100 MiB scan in the profile).
 * Bytes from elsewhere are copied in after the arena.
 */
export class ByteScanMemory {
  readonly x: ByteScanExports;
  #mem: Uint8Array;
  /** Bytes of the arena handed out, from TEXT_BASE. */
  #arenaBytes = 0;

  private constructor(x: ByteScanExports) {
    this.x = x;
    this.#mem = new Uint8Array(x.memory.buffer);
  }

  /** A fresh instance, or null where this WebAssembly lacks SIMD (the scan then uses the text path only). */
  static create(): ByteScanMemory | null {
    const mod = byteScanModule();
    return mod === null
      ? null
      : new ByteScanMemory(new WebAssembly.Instance(mod, {}).exports as unknown as ByteScanExports);
  }

  /**
   * The whole memory (a new view after it grew: growing detaches the old buffer, and its views drop to length 0,
   * which is cheaper to test than calling the `memory.buffer` getter on every call).
   */
  bytes(): Uint8Array {
    if (this.#mem.length === 0) this.#mem = new Uint8Array(this.x.memory.buffer);
    return this.#mem;
  }

  /** Makes the memory at least `end` bytes long. */
  #reserve(end: number): Uint8Array {
    const mem = this.bytes();
    if (end <= mem.length) return mem;
    this.x.memory.grow(Math.ceil((end - mem.length) / 65536));
    return this.bytes();
  }

  /**
   * The arena resized to `size` bytes, PADDING readable bytes after it (the scan reads up to 17 past a range's
   * end; index.ts says why their values do not matter). Its contents stay where they were: growing the memory
   * keeps them, so a larger arena starts with the smaller one's bytes. Earlier views of it may be detached.
   */
  arena(size: number): Uint8Array {
    const mem = this.#reserve(TEXT_BASE + size + PADDING);
    this.#arenaBytes = Math.max(this.#arenaBytes, size);
    return mem.subarray(TEXT_BASE, TEXT_BASE + size);
  }

  /** Where `bytes` lie in this memory's arena (with the padding after them in memory), or null. */
  offsetOf(bytes: Uint8Array): number | null {
    const at = bytes.byteOffset;
    return bytes.buffer === this.bytes().buffer && at >= TEXT_BASE && at + bytes.length <= TEXT_BASE + this.#arenaBytes
      ? at
      : null;
  }

  /** Copies `bytes` in after the arena, followed by PADDING zeroed bytes; returns where they start. */
  copyIn(bytes: Uint8Array): number {
    const at = TEXT_BASE + this.#arenaBytes + (this.#arenaBytes > 0 ? PADDING : 0);
    const end = at + bytes.length + PADDING;
    const mem = this.#reserve(end);
    mem.set(bytes, at);
    mem.fill(0, at + bytes.length, end);
    return at;
  }
}

export class BytePrefilter {
  readonly #m: ByteScanMemory;
  readonly #count: number;
  /** Literals found in the window last scanned. */
  #found = 0;
  #newlines = 0;
  /** Every pattern has a plan with a clause (so `literalsFound` is false for each when no literal is found). */
  readonly #everyPlanned: boolean;
  readonly #someCaseInsensitive: boolean;
  /** Per pattern: its plan, or null (no literals, or none the byte scanner can search: it may always match). */
  readonly #plans: readonly (PatternPlan | null)[];
  /** The literals past the byte scanner's records, searched in JS (many-literals.ts); null when all fit. */
  readonly #many: ManyLiterals | null;
  #ascii = true;

  /**
   * A prefilter for patterns with these literal sets (null: none), or null when the byte scanner is unavailable.
   * `sample` (a first window's bytes) ranks byte triples by how common they are in this log (fingerprints).
   * `memory`: the instance to use (one whose `arena` already holds the windows' bytes); a fresh one when omitted.
   */
  static create(
    sets: readonly (LiteralSet | null)[],
    sample: Uint8Array,
    memory: ByteScanMemory | null = ByteScanMemory.create(),
  ): BytePrefilter | null {
    return memory === null ? null : new BytePrefilter(memory, sets, sample);
  }

  private constructor(memory: ByteScanMemory, sets: readonly (LiteralSet | null)[], sample: Uint8Array) {
    this.#m = memory;
    const x = memory.x;
    const head = sample.subarray(0, SAMPLE_BYTES);
    x.countTriples(memory.offsetOf(head) ?? memory.copyIn(head), head.length);
    const triples: TripleCount = (a, b, c) => x.tripleCount(a, b, c);
    /** `at`: where its bytes go in the module's memory; a set that would pass the end gets no plan. */
    const records: { bytes: Uint8Array; ci: boolean; at: number }[] = [];
    /** Literals past the records' capacity (many-literals.ts), each at least GRAM bytes. */
    const overflow: ByteLiteral[] = [];
    let bytesAt = LITERAL_BYTES;
    const plans = sets.map((set): PatternPlan | null => {
      if (set === null) return null;
      // literals.ts keeps only such strings in a case-insensitive set; a set made elsewhere may not.
      if (set.caseInsensitive && !set.clauses.every((c) => c.every(foldsSafely))) return null;
      const size = set.clauses.reduce((n, c) => n + c.length, 0);
      const bytes = set.clauses.flat().map((s) => utf8.encode(set.caseInsensitive ? s.toLowerCase() : s));
      const total = bytes.reduce((n, b) => n + b.length, 0);
      if (bytes.some((b) => b.length === 0)) return null;
      if (records.length + size > MAX_LITERALS || bytesAt + total > LITERAL_BYTES_END) {
        if (bytes.some((b) => b.length < GRAM)) return null;
        // Overflow literals are numbered -1, -2, … in the plan (`literalsFound` reads them from `#many`).
        let k = overflow.length;
        const clauses = set.clauses.map((c) => c.map(() => -1 - k++));
        for (const b of bytes) overflow.push({ bytes: b, caseInsensitive: set.caseInsensitive });
        return { clauses, caseInsensitive: set.caseInsensitive };
      }
      let k = records.length;
      const clauses = set.clauses.map((c) => c.map(() => k++));
      for (const b of bytes) {
        records.push({ bytes: b, ci: set.caseInsensitive, at: bytesAt });
        bytesAt += b.length;
      }
      return { clauses, caseInsensitive: set.caseInsensitive };
    });
    this.#many =
      overflow.length === 0
        ? null
        : new ManyLiterals(
            overflow,
            (b, o) => triples(b[o]!, b[o + 1]!, b[o + 2]!) + triples(b[o + 1]!, b[o + 2]!, b[o + 3]!),
          );
    this.#plans = plans;
    this.#count = records.length;
    this.#everyPlanned = plans.every((p) => p !== null && p.clauses.length > 0);
    this.#someCaseInsensitive = plans.some((p) => p?.caseInsensitive === true);
    const mem = memory.bytes();
    const view = new DataView(mem.buffer);
    records.forEach(({ bytes, ci, at }, i) => {
      mem.set(bytes, at);
      const rec = LITERALS + RECORD_BYTES * i;
      view.setUint32(rec + RECORD_BYTES_AT, at, true);
      view.setUint32(rec + RECORD_LENGTH, bytes.length, true);
      view.setUint32(rec + RECORD_FINGERPRINT, fingerprintOffset(bytes, triples), true);
      // The nibble tables are built from these records by the byte scanner, per range.
      view.setUint32(rec + RECORD_FLAGS, (1 << (i % BUCKETS)) | (ci ? CASE_INSENSITIVE : 0), true);
    });
  }

  /**
   * Searches `bytes` (a window's UTF-8 bytes; `ascii`: all below 0x80); `literalsFound` answers for it, and `newlines`
   * for its part [linesFrom, linesTo) (the window's own bytes). Bytes in the memory's arena are searched where they
   * are; others are copied in first.
   */
  scan(bytes: Uint8Array, ascii: boolean, linesFrom = 0, linesTo = bytes.length): void {
    if (!(0 <= linesFrom && linesFrom <= linesTo && linesTo <= bytes.length))
      throw new RangeError(`BytePrefilter.scan: lines [${linesFrom}, ${linesTo}) outside [0, ${bytes.length})`);
    const m = this.#m;
    const at = m.offsetOf(bytes) ?? m.copyIn(bytes);
    this.#found = 0;
    if (this.#count > 0) {
      const mem = m.bytes();
      mem.fill(0, FOUND, FOUND + this.#count);
      this.#found = m.x.findLiterals(at, bytes.length, this.#count);
    }
    if (this.#many !== null) this.#found += this.#many.scan(bytes);
    // A pass of its own: counted in findLiterals's loop from the blocks it loads anyway, the search took longer
    // than the two passes (measured: 46 vs 32 + 7 ms over the clean 100 MiB; its vectors no longer fit in registers).
    this.#newlines = m.x.countNewlines(at + linesFrom, linesTo - linesFrom);
    this.#ascii = ascii;
  }

  /** "\n" bytes in the part of the window last scanned that `scan` was given. */
  newlines(): number {
    return this.#newlines;
  }

  /**
   * Whether no pattern may match in the window last scanned: the common answer on a clean log, given without
   * asking each pattern (every pattern has a plan, so each needs a literal, and the window held none).
   */
  clearsAll(): boolean {
    return this.#found === 0 && this.#everyPlanned && (this.#ascii || !this.#someCaseInsensitive);
  }

  /**
   * Whether the window last scanned holds the literals of pattern `i` (its index in the sets given to `create`):
   * every clause has one. Null when the byte scanner cannot tell (no plan, or a case-insensitive set in a window
   * that is not ASCII); the pattern may then match, and only a look at the text says more.
   */
  literalsFound(i: number): boolean | null {
    const plan = this.#plans[i];
    if (plan === undefined || plan === null || (plan.caseInsensitive && !this.#ascii)) return null;
    const mem = this.#m.bytes();
    const many = this.#many?.found;
    // Loops, not every/some: this runs per pattern per window that holds some literal, mostly before it is hot.
    for (const clause of plan.clauses) {
      let found = false;
      for (let j = 0; j < clause.length && !found; j++) {
        const k = clause[j]!;
        found = k >= 0 ? mem[FOUND + k] !== 0 : many![-1 - k] !== 0;
      }
      if (!found) return false;
    }
    return true;
  }
}

const fold = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/** Bytes of the first window sampled: enough to tell a log's common triples. */
const SAMPLE_BYTES = 16 * 1024;

/** How often a byte triple occurs in the sample (the module's `tripleCount`: ASCII letters folded, hashed). */
type TripleCount = (a: number, b: number, c: number) => number;

/** Letters by how common they are in English text (space first): the tie-break among triples the sample lacks. */
const COMMON = ' etaoinsrhldcumfpgwybvkxjqz';

/** How common a byte is likely to be, for a tie-break: common letters and space high, digits middling. */
function commonness(b: number): number {
  const i = COMMON.indexOf(String.fromCharCode(fold(b)));
  if (i >= 0) return 255 - 4 * i;
  return b >= 0x30 && b <= 0x39 ? 150 : 40;
}

/** The offset of the literal's rarest byte triple in the sample, ties to the one with the least common bytes. */
function fingerprintOffset(bytes: Uint8Array, triples: TripleCount): number {
  let best = 0;
  let bestScore = Infinity;
  for (let i = 0; i + FINGERPRINT <= bytes.length; i++) {
    const score =
      triples(bytes[i]!, bytes[i + 1]!, bytes[i + 2]!) * 1024 +
      commonness(bytes[i]!) +
      commonness(bytes[i + 1]!) +
      commonness(bytes[i + 2]!);
    if (score < bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}
