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
 */
import { foldsSafely, type LiteralSet } from '../regex/literals.js';
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
  findLiterals(ptr: number, len: number, count: number): number;
}

let compiled: WebAssembly.Module | null | undefined;

/** The byte scanner's module, or null where this WebAssembly lacks SIMD (the scan then uses the text path only). */
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

/** A pattern's clauses as literal indices, and whether they are compared case-insensitively. */
interface PatternPlan {
  readonly clauses: readonly (readonly number[])[];
  readonly caseInsensitive: boolean;
}

export class BytePrefilter {
  readonly #x: ByteScanExports;
  #mem: Uint8Array;
  readonly #count: number;
  /** Per pattern: its plan, or null (no literals, or none the byte scanner can search: it may always match). */
  readonly #plans: readonly (PatternPlan | null)[];
  #ascii = true;

  /**
   * A prefilter for patterns with these literal sets (null: none), or null when the byte scanner is unavailable.
   * `sample` (a first window's bytes) ranks byte triples by how common they are in this log (fingerprints).
   */
  static create(sets: readonly (LiteralSet | null)[], sample: Uint8Array): BytePrefilter | null {
    const mod = byteScanModule();
    if (mod === null) return null;
    const x = new WebAssembly.Instance(mod, {}).exports as unknown as ByteScanExports;
    return new BytePrefilter(x, sets, sample);
  }

  private constructor(x: ByteScanExports, sets: readonly (LiteralSet | null)[], sample: Uint8Array) {
    this.#x = x;
    this.#mem = new Uint8Array(x.memory.buffer);
    const triples = tripleFrequencies(sample);
    /** `at`: where its bytes go in the module's memory; a set that would pass the end gets no plan. */
    const records: { bytes: Uint8Array; ci: boolean; at: number }[] = [];
    let bytesAt = LITERAL_BYTES;
    const plans = sets.map((set): PatternPlan | null => {
      if (set === null) return null;
      // literals.ts keeps only such strings in a case-insensitive set; a set made elsewhere may not.
      if (set.caseInsensitive && !set.clauses.every((c) => c.every(foldsSafely))) return null;
      const size = set.clauses.reduce((n, c) => n + c.length, 0);
      const bytes = set.clauses.flat().map((s) => utf8.encode(set.caseInsensitive ? s.toLowerCase() : s));
      const total = bytes.reduce((n, b) => n + b.length, 0);
      if (
        records.length + size > MAX_LITERALS ||
        bytesAt + total > LITERAL_BYTES_END ||
        bytes.some((b) => b.length === 0)
      )
        return null;
      let k = records.length;
      const clauses = set.clauses.map((c) => c.map(() => k++));
      for (const b of bytes) {
        records.push({ bytes: b, ci: set.caseInsensitive, at: bytesAt });
        bytesAt += b.length;
      }
      return { clauses, caseInsensitive: set.caseInsensitive };
    });
    this.#plans = plans;
    this.#count = records.length;
    const mem = this.#mem;
    const view = new DataView(x.memory.buffer);
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

  /** Searches `bytes` (a window's UTF-8 bytes; `ascii`: all below 0x80); `mayMatch` and `newlines` answer for it. */
  scan(bytes: Uint8Array, ascii: boolean): void {
    const need = TEXT_BASE + bytes.length + PADDING;
    if (need > this.#mem.length) {
      this.#x.memory.grow(Math.ceil((need - this.#mem.length) / 65536));
      this.#mem = new Uint8Array(this.#x.memory.buffer);
    }
    const mem = this.#mem;
    mem.set(bytes, TEXT_BASE);
    mem.fill(0, TEXT_BASE + bytes.length, need);
    if (this.#count > 0) {
      mem.fill(0, FOUND, FOUND + this.#count);
      this.#x.findLiterals(TEXT_BASE, bytes.length, this.#count);
    }
    this.#ascii = ascii;
  }

  /** Whether pattern `i` (its index in the sets given to `create`) may match in the window last scanned. */
  mayMatch(i: number): boolean {
    const plan = this.#plans[i];
    if (plan === undefined || plan === null || (plan.caseInsensitive && !this.#ascii)) return true;
    const mem = this.#mem;
    return plan.clauses.every((clause) => clause.some((k) => mem[FOUND + k] !== 0));
  }

  /** "\n" bytes in [from, to) of the window last scanned. */
  newlines(from: number, to: number): number {
    return this.#x.countNewlines(TEXT_BASE + from, to - from);
  }
}

const fold = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/** A hash of 3 (folded) bytes into 16 bits: collisions only over-count a triple. */
const tripleHash = (a: number, b: number, c: number): number =>
  Math.imul((fold(a) << 16) | (fold(b) << 8) | fold(c), 0x9e3779b1) >>> 16;

/** Bytes of the first window sampled: enough to tell a log's common triples (a whole window took ~4 ms cold). */
const SAMPLE_BYTES = 16 * 1024;

/** How often each byte triple occurs in `sample` (ASCII letters folded to lower case: one table serves both). */
function tripleFrequencies(sample: Uint8Array): Uint32Array {
  const f = new Uint32Array(65536);
  const n = Math.min(sample.length, SAMPLE_BYTES);
  for (let i = 0; i + 2 < n; i++) f[tripleHash(sample[i]!, sample[i + 1]!, sample[i + 2]!)]!++;
  return f;
}

/** Letters by how common they are in English text (space first): the tie-break among triples the sample lacks. */
const COMMON = ' etaoinsrhldcumfpgwybvkxjqz';

/** How common a byte is likely to be, for a tie-break: common letters and space high, digits middling. */
function commonness(b: number): number {
  const i = COMMON.indexOf(String.fromCharCode(fold(b)));
  if (i >= 0) return 255 - 4 * i;
  return b >= 0x30 && b <= 0x39 ? 150 : 40;
}

/** The offset of the literal's rarest byte triple in the sample, ties to the one with the least common bytes. */
function fingerprintOffset(bytes: Uint8Array, triples: Uint32Array): number {
  let best = 0;
  let bestScore = Infinity;
  for (let i = 0; i + FINGERPRINT <= bytes.length; i++) {
    const score =
      triples[tripleHash(bytes[i]!, bytes[i + 1]!, bytes[i + 2]!)]! * 1024 +
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
