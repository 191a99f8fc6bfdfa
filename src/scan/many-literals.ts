/**
 * `ManyLiterals`: which of many literals occur in a window's bytes, in one pass over them — for the literals the
 * byte scanner's records cannot hold (it takes 192: Teddy's buckets blur beyond a few dozen). A catalogue of
 * failure signatures has thousands of patterns; without this each pattern past the first ~190 literals searched
 * the window's text on its own (a case-insensitive RegExp per clause: 0.6 s of a 3,200-pattern scan of 1 MiB).
 *
 * Invariants (each literal's bytes `L`, `n = L.length`; a window's bytes `W`):
 *  M1 every literal has n ≥ GRAM bytes (the caller keeps shorter ones out); a case-insensitive one is ASCII and is
 *     compared with ASCII letters folded (byte-prefilter.ts, rule 3, says when that is Python's IGNORECASE).
 *  M2 a literal is indexed under exactly one gram: fold(L[o..o+GRAM)) for an offset o chosen by rarity in the
 *     log's first window (any o is sound; a rare one makes fewer candidates).
 *  M3 `scan` computes fold(W[j-GRAM+1..j]) for every j ≥ GRAM-1 (a rolling value, one byte at a time). If L occurs at
 *     p then its gram is W's at j = p + o + GRAM - 1, which is visited; the gram's hash bit is set (M2), so the
 *     gram's literals are looked up and L is compared at p = j - GRAM + 1 - o (in bounds by construction). Hash
 *     collisions only add lookups, and the comparison is exact (folded for M1's literals): a literal is found
 *     exactly when it occurs.
 */

/** Bytes per gram: a 32-bit rolling value. */
export const GRAM = 4;

export interface ByteLiteral {
  readonly bytes: Uint8Array;
  /** Compare with ASCII letters folded (the bytes are stored folded). */
  readonly caseInsensitive: boolean;
}

/** ASCII letters to lower case; every other byte unchanged. */
const FOLD = new Uint8Array(256).map((_, b) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b));

/** 16 bits of a gram: the index of its bit in the presence table. */
const gramBit = (gram: number): number => Math.imul(gram, 0x9e3779b1) >>> 16;

function gramAt(bytes: Uint8Array, at: number): number {
  return (
    ((FOLD[bytes[at]!]! << 24) |
      (FOLD[bytes[at + 1]!]! << 16) |
      (FOLD[bytes[at + 2]!]! << 8) |
      FOLD[bytes[at + 3]!]!) >>>
    0
  );
}

export class ManyLiterals {
  readonly count: number;
  readonly #literals: readonly ByteLiteral[];
  /** Per literal: the offset of its indexed gram (M2). */
  readonly #offsets: Int32Array;
  /** Gram → the literals indexed under it. */
  readonly #byGram = new Map<number, number[]>();
  /** 65,536 bits: set for the hash of every indexed gram. */
  readonly #present = new Uint8Array(8192);
  /** 1 where the literal occurred in the window last scanned. */
  readonly found: Uint8Array;

  /**
   * `literals` must each have at least GRAM bytes (M1); `rarity(bytes, o)` scores the gram at offset o (lower is
   * rarer), or every offset scores the same when omitted.
   */
  constructor(literals: readonly ByteLiteral[], rarity?: (bytes: Uint8Array, at: number) => number) {
    this.#literals = literals;
    this.count = literals.length;
    this.#offsets = new Int32Array(literals.length);
    this.found = new Uint8Array(literals.length);
    literals.forEach((lit, i) => {
      if (lit.bytes.length < GRAM) throw new RangeError(`ManyLiterals: literal ${i} is shorter than ${GRAM} bytes`);
      let best = 0;
      let bestScore = Infinity;
      for (let o = 0; rarity !== undefined && o + GRAM <= lit.bytes.length; o++) {
        const score = rarity(lit.bytes, o);
        if (score < bestScore) [best, bestScore] = [o, score];
      }
      this.#offsets[i] = best;
      const gram = gramAt(lit.bytes, best);
      const list = this.#byGram.get(gram);
      if (list === undefined) this.#byGram.set(gram, [i]);
      else list.push(i);
      const bit = gramBit(gram);
      this.#present[bit >>> 3]! |= 1 << (bit & 7);
    });
  }

  /** Marks in `found` the literals that occur in `bytes`; returns how many do. */
  scan(bytes: Uint8Array): number {
    const found = this.found;
    found.fill(0);
    let hits = 0;
    const present = this.#present;
    const n = bytes.length;
    let gram = 0;
    for (let j = 0; j < n; j++) {
      gram = ((gram << 8) | FOLD[bytes[j]!]!) >>> 0;
      if (j < GRAM - 1) continue;
      const bit = gramBit(gram);
      if ((present[bit >>> 3]! & (1 << (bit & 7))) === 0) continue;
      const list = this.#byGram.get(gram);
      if (list === undefined) continue;
      const gramStart = j - GRAM + 1;
      for (const i of list) {
        if (found[i] !== 0) continue;
        const at = gramStart - this.#offsets[i]!;
        const lit = this.#literals[i]!;
        if (at >= 0 && at + lit.bytes.length <= n && occursAt(bytes, at, lit)) {
          found[i] = 1;
          hits++;
        }
      }
    }
    return hits;
  }
}

function occursAt(bytes: Uint8Array, at: number, lit: ByteLiteral): boolean {
  const l = lit.bytes;
  if (lit.caseInsensitive) {
    for (let k = 0; k < l.length; k++) if (FOLD[bytes[at + k]!] !== l[k]) return false;
  } else {
    for (let k = 0; k < l.length; k++) if (bytes[at + k] !== l[k]) return false;
  }
  return true;
}
