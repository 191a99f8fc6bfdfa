/**
 * src/scan/byte-prefilter.ts and the byte scanner (assembly/bytescan): on random bytes and random literal sets,
 * `literalsFound` is exactly "every clause has a string in the text" (case-insensitively for a case-insensitive
 * set on ASCII text; null, cannot tell, for one on other text and for a pattern without a plan), and `newlines` is the count of "\n" bytes, at every length
 * and alignment.
 */
import { describe, expect, it } from 'vitest';
import type { LiteralSet } from '../src/regex/literals.js';
import * as L from '../assembly/bytescan/layout.js';
import { BytePrefilter, ByteScanMemory } from '../src/scan/byte-prefilter.js';
import { rng as mulberry } from './support/rng.js';

/** The byte scanner's triple counter (the host reaches it through BytePrefilter only). */
interface TripleExports {
  countTriples(ptr: number, len: number): void;
  tripleCount(a: number, b: number, c: number): number;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

/** Text over a small alphabet (so that literals occur, and near-misses abound); `wide` adds non-ASCII. */
function randomText(r: () => number, length: number, wide: boolean): string {
  const alphabet = wide
    ? ['a', 'b', 'A', 'B', 'n', '=', '\n', ' ', 'é', 'ſ', '😀']
    : ['a', 'b', 'A', 'B', 'n', '=', '\n', ' '];
  let s = '';
  while (s.length < length) s += pick(r, alphabet);
  return s;
}

function randomSet(r: () => number, wide: boolean): LiteralSet {
  const caseInsensitive = r() < 0.4;
  const alphabet =
    caseInsensitive || !wide ? ['a', 'b', 'A', 'n', '=', ' '] : ['a', 'b', 'A', 'n', '=', ' ', 'é', '😀'];
  const clauses = Array.from({ length: 1 + Math.floor(r() * 2) }, () =>
    Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      randomText(r, 1 + Math.floor(r() * 6), false).replace(/\n/g, 'b'),
    ).map((s) => (alphabet.length > 6 && r() < 0.3 ? `${s}${pick(r, ['é', '😀'])}` : s)),
  );
  return { clauses, caseInsensitive };
}

function holds(set: LiteralSet, text: string): boolean {
  const hay = set.caseInsensitive ? text.toLowerCase() : text;
  return set.clauses.every((c) => c.some((lit) => hay.includes(set.caseInsensitive ? lit.toLowerCase() : lit)));
}

describe('the byte scanner layout (assembly/bytescan/layout.ts)', () => {
  it('lays its regions out in order, without overlap', () => {
    expect(L.TABLES + L.FINGERPRINT * L.TABLE_BYTES).toBeLessThanOrEqual(L.SCRATCH);
    expect(L.SCRATCH + 16).toBeLessThanOrEqual(L.LITERALS);
    expect(L.MAX_LITERALS).toBe(192);
    expect(L.FOUND + L.MAX_LITERALS).toBeLessThanOrEqual(L.LITERAL_BYTES);
    expect(L.LITERAL_BYTES_END).toBeLessThanOrEqual(L.TRIPLES);
    expect(L.TRIPLES + 2 * L.TRIPLE_BUCKETS).toBeLessThanOrEqual(L.TEXT_BASE);
    expect(L.TRIPLE_SAMPLE_MAX).toBeLessThan(2 ** 16); // a count never wraps its u16
    expect(L.RECORD_FLAGS + 4).toBeLessThanOrEqual(L.RECORD_BYTES);
    expect(L.BUCKET_MASK).toBe(0xff); // a bucket bit per lane byte
    expect(L.CASE_INSENSITIVE & L.BUCKET_MASK).toBe(0);
  });
});

describe('BytePrefilter', () => {
  it('literalsFound is exactly the literal condition on ASCII text, and says it cannot tell on other text', () => {
    const r = mulberry(20261202);
    let held = 0;
    let notHeld = 0;
    for (let round = 0; round < 300; round++) {
      const wide = round % 3 === 0;
      // Up to 40 patterns: more literals than the scanner's 8 buckets, so buckets are shared.
      const sets = Array.from({ length: 1 + Math.floor(r() * 40) }, (_, i) =>
        i % 7 === 6 ? null : randomSet(r, wide),
      );
      const sample = utf8(randomText(r, 500, wide));
      const pf = BytePrefilter.create(sets, sample);
      expect(pf).not.toBeNull();
      for (let t = 0; t < 5; t++) {
        const text = randomText(r, Math.floor(r() * 400), wide);
        const bytes = utf8(text);
        const ascii = bytes.every((b) => b < 0x80);
        pf!.scan(bytes, ascii);
        sets.forEach((set, i) => {
          const expected = set === null || (set.caseInsensitive && !ascii) ? null : holds(set, text);
          if (expected !== false) held++;
          else notHeld++;
          expect(pf!.literalsFound(i), JSON.stringify({ set, text })).toBe(expected);
        });
      }
    }
    // Both outcomes occur often enough for the comparison to mean something.
    expect(Math.min(held, notHeld)).toBeGreaterThan(1000);
  });

  it('finds a literal at the very start and end of the text and across 16-byte blocks', () => {
    const sets: LiteralSet[] = [
      { clauses: [['Traceback (most']], caseInsensitive: false },
      { clauses: [['loss=nan']], caseInsensitive: true },
      { clauses: [['x']], caseInsensitive: false },
      { clauses: [['yz']], caseInsensitive: false },
    ];
    const pf = BytePrefilter.create(sets, utf8('step 1 loss=0.5 lr=3e-4\n'.repeat(100)))!;
    const pad = '.'.repeat(40);
    for (let at = 0; at < 40; at++) {
      for (const [i, lit] of [
        [0, 'Traceback (most'],
        [1, 'LoSS=NaN'],
        [2, 'x'],
        [3, 'yz'],
      ] as const) {
        const text = `${pad.slice(0, at)}${lit}`;
        pf.scan(utf8(text), true);
        expect(pf.literalsFound(i), `${lit} at ${at}`).toBe(true);
        pf.scan(utf8(`${lit}${pad.slice(0, at)}`), true);
        expect(pf.literalsFound(i), `${lit} then ${at}`).toBe(true);
        // One byte short of the literal, at the end: not found (nothing past the text counts).
        pf.scan(utf8(text.slice(0, -1)), true);
        expect(pf.literalsFound(i), `${lit} cut at ${at}`).toBe(false);
      }
    }
  });

  it('counts the newlines of the part it is given, at every length and offset, with and without literals', () => {
    const r = mulberry(7);
    // No literals (countNewlines alone); literals never found (counted in the search loop); a literal found early
    // (the search stops, the rest is counted after); "ab" and "ba" found late or not at all.
    const plans: LiteralSet[][] = [
      [],
      [{ clauses: [['zzz']], caseInsensitive: false }],
      [{ clauses: [['b']], caseInsensitive: false }],
      [
        { clauses: [['ab']], caseInsensitive: false },
        { clauses: [['ba']], caseInsensitive: true },
      ],
    ];
    for (const sets of plans) {
      const pf = BytePrefilter.create(sets, utf8('sample'))!;
      for (let round = 0; round < 300; round++) {
        // Up to 255 * 16 * 2 bytes: past the point where the loop's byte lanes are widened.
        const n = Math.floor(r() * 9000);
        const bytes = Uint8Array.from({ length: n }, () => (r() < 0.3 ? 0x0a : r() < 0.003 ? 0x62 : 0x61));
        const from = Math.floor(r() * Math.min(40, n + 1));
        const to = r() < 0.3 ? n : from + Math.floor(r() * (n - from + 1));
        pf.scan(bytes, true, from, to);
        const expected = bytes.subarray(from, to).reduce((k, b) => k + (b === 0x0a ? 1 : 0), 0);
        expect(pf.newlines(), `${sets.length} sets, [${from}, ${to}) of ${n}`).toBe(expected);
      }
      expect(() => pf.scan(utf8('abc'), true, 2, 4)).toThrow(RangeError);
    }
  });

  it('clears all patterns at once only when every one has a plan and none of their literals is there', () => {
    const cs: LiteralSet = { clauses: [['needle']], caseInsensitive: false };
    const ci: LiteralSet = { clauses: [['loss=nan']], caseInsensitive: true };
    const both = BytePrefilter.create([cs, ci], utf8('sample'))!;
    both.scan(utf8('nothing here\n'), true);
    expect(both.clearsAll()).toBe(true);
    both.scan(utf8('a needle here\n'), true);
    expect(both.clearsAll()).toBe(false);
    // Not ASCII: a case-insensitive literal could match through a non-ASCII case partner, so it may match.
    both.scan(utf8('nothing here \u212a\n'), false);
    expect(both.clearsAll()).toBe(false);
    const sensitive = BytePrefilter.create([cs], utf8('sample'))!;
    sensitive.scan(utf8('nothing here \u212a\n'), false);
    expect(sensitive.clearsAll()).toBe(true);
    // A pattern without literals may always match.
    const unplanned = BytePrefilter.create([cs, null], utf8('sample'))!;
    unplanned.scan(utf8('nothing here\n'), true);
    expect(unplanned.clearsAll()).toBe(false);
    expect([0, 1].map((i) => unplanned.literalsFound(i))).toEqual([false, null]);
  });

  it('says whether a pattern’s literals were found, or null where its answer would not be its own', () => {
    const cs: LiteralSet = { clauses: [['needle'], ['thread', 'string']], caseInsensitive: false };
    const ci: LiteralSet = { clauses: [['loss=nan']], caseInsensitive: true };
    const pf = BytePrefilter.create([cs, ci, null], utf8('sample'))!;
    pf.scan(utf8('a needle and a string\n'), true);
    expect([0, 1, 2].map((i) => pf.literalsFound(i))).toEqual([true, false, null]);
    pf.scan(utf8('a needle, no second clause; LOSS=NaN\n'), true);
    expect([0, 1, 2].map((i) => pf.literalsFound(i))).toEqual([false, true, null]);
    // Not ASCII: a case-insensitive set may match through a non-ASCII case partner the bytes do not show.
    pf.scan(utf8('thread needle \u212a\n'), false);
    expect([0, 1, 2].map((i) => pf.literalsFound(i))).toEqual([true, null, null]);
  });

  it('searches the literals that no longer fit its table in JS (many-literals.ts), still exactly', () => {
    // 100 literals of 1000 bytes: more than the 56 KiB the module keeps for literal bytes.
    const lit = (i: number) => `${String(i).padStart(3, '0')}${'q'.repeat(997)}`;
    const sets: LiteralSet[] = Array.from({ length: 100 }, (_, i) => ({ clauses: [[lit(i)]], caseInsensitive: false }));
    const pf = BytePrefilter.create(sets, utf8('sample'))!;
    pf.scan(utf8('nothing here'), true);
    expect(sets.map((_, i) => pf.literalsFound(i))).toEqual(Array(100).fill(false));
    expect(pf.clearsAll()).toBe(true);
    const text = `x${lit(3)}y${lit(42)}z${lit(80)}`;
    pf.scan(utf8(text), true);
    expect(sets.map((_, i) => pf.literalsFound(i))).toEqual(
      Array.from({ length: 100 }, (_, i) => [3, 42, 80].includes(i)),
    );
    expect(pf.clearsAll()).toBe(false);
  });

  it('gives a pattern past its table with a literal shorter than 4 bytes no plan (it always may match)', () => {
    const sets: LiteralSet[] = Array.from({ length: 200 }, (_, i) => ({
      clauses: [[i === 195 ? 'ab' : `lit-${String(i).padStart(3, '0')}`]],
      caseInsensitive: false,
    }));
    const pf = BytePrefilter.create(sets, utf8('sample'))!;
    pf.scan(utf8('lit-190 lit-197'), true);
    const found = sets.map((_, i) => pf.literalsFound(i));
    expect(found[195]).toBeNull();
    expect(found.filter((f) => f === true).length).toBe(2);
    expect([found[190], found[197], found[196]]).toEqual([true, true, false]);
    expect(pf.clearsAll()).toBe(false);
  });

  it('is exact on random sets of hundreds of literals (most past the table), case-insensitive ones on ASCII text', () => {
    const r = mulberry(38);
    let held = 0;
    let notHeld = 0;
    for (let round = 0; round < 40; round++) {
      const wide = round % 4 === 0;
      const sets = Array.from({ length: 150 + Math.floor(r() * 200) }, (): LiteralSet => {
        const set = randomSet(r, wide);
        // Literals of 4 bytes or more, so that each set has a plan wherever it lands.
        return { ...set, clauses: set.clauses.map((c) => c.map((lit) => lit.padEnd(4, 'b'))) };
      });
      const pf = BytePrefilter.create(sets, utf8(randomText(r, 500, wide)))!;
      for (let t = 0; t < 4; t++) {
        const text = randomText(r, Math.floor(r() * 3000), wide);
        const bytes = utf8(text);
        const ascii = bytes.every((b) => b < 0x80);
        pf.scan(bytes, ascii);
        sets.forEach((set, i) => {
          const expected = set.caseInsensitive && !ascii ? null : holds(set, text);
          if (expected === true) held++;
          else if (expected === false) notHeld++;
          if (pf.literalsFound(i) !== expected)
            expect(pf.literalsFound(i), JSON.stringify({ i, set, text })).toBe(expected);
        });
      }
    }
    expect(Math.min(held, notHeld)).toBeGreaterThan(2000);
  });

  it('searches bytes in its arena where they lie, keeps them when the arena grows, and copies others after it', () => {
    const memory = ByteScanMemory.create()!;
    const small = memory.arena(64);
    small.set(utf8('xx needle xx'));
    // Growing past the memory's end detaches `small`; the larger arena starts with its bytes.
    const big = memory.arena(300_000);
    expect(Buffer.from(big.subarray(0, 12)).toString()).toBe('xx needle xx');
    const pf = BytePrefilter.create([{ clauses: [['needle']], caseInsensitive: false }], utf8('x'), memory)!;
    expect(memory.offsetOf(big.subarray(3, 9))).toBe(L.TEXT_BASE + 3);
    pf.scan(big.subarray(0, 12), true);
    expect(pf.literalsFound(0)).toBe(true);
    pf.scan(big.subarray(0, 8), true); // "xx needl": the literal's end is past the range
    expect(pf.literalsFound(0)).toBe(false);
    // A window from elsewhere is copied in after the arena: the arena's bytes are untouched.
    expect(memory.offsetOf(utf8('xx needle xx'))).toBeNull();
    pf.scan(utf8('no such thing'), true);
    expect(pf.literalsFound(0)).toBe(false);
    expect(Buffer.from(memory.arena(300_000).subarray(0, 12)).toString()).toBe('xx needle xx');
  });

  it("counts byte triples (letters folded) exactly up to its hash: each count is its bucket's total", () => {
    // The module's hash, written out here as the oracle: the 24 folded bits times a Fibonacci constant, top 16 bits.
    const fold = (b: number) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);
    const key = (a: number, b: number, c: number) => (fold(a) << 16) | (fold(b) << 8) | fold(c);
    const bucket = (k: number) => Math.imul(k, 0x9e3779b1) >>> 16;
    const r = mulberry(7);
    for (let round = 0; round < 20; round++) {
      const memory = ByteScanMemory.create()!;
      const len = pick(r, [0, 1, 2, 3, 17, 1000, 20_000]);
      const sample = Uint8Array.from({ length: len }, () =>
        r() < 0.5 ? pick(r, [0x41, 0x61, 0x5a, 0x7a, 0x0a]) : Math.floor(r() * 256),
      );
      const m = memory.x as unknown as TripleExports;
      m.countTriples(memory.copyIn(sample), sample.length);
      const perBucket = new Map<number, number>();
      for (let i = 0; i + 2 < sample.length; i++) {
        const b = bucket(key(sample[i]!, sample[i + 1]!, sample[i + 2]!));
        perBucket.set(b, (perBucket.get(b) ?? 0) + 1);
      }
      for (let i = 0; i + 2 < Math.min(sample.length, 50); i++) {
        const [a, b, c] = [sample[i]!, sample[i + 1]!, sample[i + 2]!];
        expect(m.tripleCount(a, b, c)).toBe(perBucket.get(bucket(key(a, b, c))));
      }
      expect(m.tripleCount(0x51, 0x51, 0x51)).toBe(perBucket.get(bucket(key(0x71, 0x71, 0x71))) ?? 0); // "QQQ" as "qqq"
      // A second count starts from zero.
      m.countTriples(memory.copyIn(sample.subarray(0, 2)), 2);
      expect(m.tripleCount(0x41, 0x41, 0x41)).toBe(0);
    }
  });

  it('grows its memory for a window longer than a page', () => {
    const pf = BytePrefilter.create([{ clauses: [['needle']], caseInsensitive: false }], utf8('x'))!;
    const text = `${'\n'.repeat(300_000)}needle`;
    pf.scan(utf8(text), true);
    expect(pf.literalsFound(0)).toBe(true);
    expect(pf.newlines()).toBe(300_000);
  });
});
