import { describe, expect, it } from 'vitest';
import { ByteWindower, DEFAULT_WINDOW_BYTES, iterWindows, type ScanWindow } from '../src/scan/index.js';
import { rng as mulberry } from './support/rng.js';

class Rng {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry(seed);
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }
}

const decode = (b: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(b);

/**
 * `windows` without what only a byte windower gives (`ownBytes`, `bytes`, `bytesFrom`, `ascii`: iterWindows has
 * none), after checking each of them against the window's text. Call it on a push's windows at once: their
 * `bytes` are views of the windower's buffer, valid until the next push.
 */
function checkedByteFields(windows: readonly ScanWindow[]): ScanWindow[] {
  return windows.map((w) => {
    const rest: ScanWindow = { text: w.text, base: w.base, from: w.from, ownEnd: w.ownEnd, last: w.last };
    if (w.ownBytes !== undefined) expect(w.ownBytes).toBe(Buffer.byteLength(w.text.slice(w.from, w.ownEnd)));
    if (w.bytes !== undefined) {
      expect(Buffer.from(w.bytes).toString('utf8')).toBe(w.text);
      expect(w.bytesFrom).toBe(Buffer.byteLength(w.text.slice(0, w.from)));
      expect(w.ascii).toBe(w.bytes.every((b) => b < 0x80));
    }
    return rest;
  });
}

/** The windows ByteWindower cuts from `bytes` fed in the given chunk sizes (checkedByteFields). */
function windowsOf(bytes: Uint8Array, windowBytes: number, chunkSizes: () => number): ScanWindow[] {
  const w = new ByteWindower({ windowBytes });
  const out: ScanWindow[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = Math.max(1, chunkSizes());
    out.push(...checkedByteFields(w.push(bytes.subarray(i, i + n))));
    i += n;
  }
  out.push(...checkedByteFields(w.end()));
  return out;
}

function expectSameWindows(bytes: Uint8Array, windowBytes: number, rng: Rng): void {
  const expected = [...iterWindows(decode(bytes), { windowBytes })];
  for (const max of [1, 7, 4096, 1 << 20]) {
    expect(windowsOf(bytes, windowBytes, () => rng.int(1, max))).toEqual(expected);
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('ByteWindower cuts the windows iterWindows cuts from the decoded text', () => {
  it('ASCII, one window and many', () => {
    const rng = new Rng(7);
    const text = Array.from({ length: 400 }, (_, i) => `step ${i} loss=0.${i % 10}\n`).join('');
    for (const windowBytes of [16, 100, 257, 4096, 60 * 1024]) expectSameWindows(utf8(text), windowBytes, rng);
  });

  it('2-, 3- and 4-byte characters at every alignment', () => {
    const rng = new Rng(8);
    const text = 'ab😀c中d\u00e9\n'.repeat(300);
    for (const windowBytes of [16, 17, 18, 19, 100, 257]) expectSameWindows(utf8(text), windowBytes, rng);
  });

  it('invalid UTF-8 anywhere (the stream leaves the byte path and stays exact)', () => {
    const rng = new Rng(9);
    const good = utf8('x中😀y\n'.repeat(50));
    const bad = [[0xff], [0x80], [0xe4, 0xb8], [0xf0, 0x9f, 0x98], [0xc0, 0xaf], [0xed, 0xa0, 0x80]];
    for (let round = 0; round < 40; round++) {
      const at = rng.int(0, good.length);
      const junk = bad[rng.int(0, bad.length - 1)]!;
      const bytes = new Uint8Array([...good.subarray(0, at), ...junk, ...good.subarray(at)]);
      for (const windowBytes of [16, 37, 100]) expectSameWindows(bytes, windowBytes, rng);
    }
  });

  it('a stray continuation byte exactly at a window budget is not taken for a character boundary', () => {
    const rng = new Rng(10);
    for (let k = 0; k < 30; k++) {
      const bytes = new Uint8Array([...utf8('a'.repeat(k)), 0xe4, 0xb8, 0xad, 0x80, 0x80, ...utf8('b'.repeat(200))]);
      for (const windowBytes of [16, 20, 33]) expectSameWindows(bytes, windowBytes, rng);
    }
  });

  it('a BOM, CRLF, NUL and a truncated sequence at the very end', () => {
    const rng = new Rng(11);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('line\r\n\u0000é\n'.repeat(40)), 0xe4, 0xb8]);
    for (const windowBytes of [16, 64, 1000]) expectSameWindows(bytes, windowBytes, rng);
  });

  it('string chunks are taken as decoded text', () => {
    const w = new ByteWindower({ windowBytes: 16 });
    const text = 'éa😀'.repeat(20);
    const got = [
      ...checkedByteFields(w.push(utf8(text.slice(0, 10)))),
      ...checkedByteFields(w.push(text.slice(10))),
      ...checkedByteFields(w.end()),
    ];
    expect(got).toEqual([...iterWindows(text, { windowBytes: 16 })]);
  });

  it('pushFrom reads into its own buffer, on a 64-byte boundary when reads are multiples of 64, and cuts the same windows', () => {
    const rng = new Rng(11);
    const text = Array.from({ length: 4000 }, (_, i) => `step ${i} loss=0.${rng.int(0, 999)} é中😀\n`).join('');
    const bytes = utf8(text);
    for (const [windowBytes, want] of [
      [333, 960],
      [4096, 65536],
    ] as const) {
      const w = new ByteWindower({ windowBytes });
      const offsets: number[] = [];
      let at = 0;
      const out: ScanWindow[] = [];
      for (;;) {
        const got = w.pushFrom((into) => {
          const n = Math.min(into.length, bytes.length - at);
          if (n > 0) offsets.push(into.byteOffset); // the call after the last, short read finds nothing to read
          into.set(bytes.subarray(at, at + n));
          at += n;
          return n;
        }, want);
        if (got === null) break;
        expect(Buffer.from(got.read).equals(Buffer.from(bytes.subarray(at - got.read.length, at)))).toBe(true);
        out.push(...checkedByteFields(got.windows));
      }
      out.push(...checkedByteFields(w.end()));
      expect(out).toEqual([...iterWindows(text, { windowBytes })]);
      expect(offsets.filter((o) => o % 64 !== 0)).toEqual([]);
    }
  });

  it('an empty stream is one empty last window', () => {
    expect(checkedByteFields(new ByteWindower().end())).toEqual([
      { text: '', base: 0, from: 0, ownEnd: 0, last: true },
    ]);
  });

  it("the default window keeps even a two-byte-character window under V8's 128 KiB large-object size", () => {
    expect(DEFAULT_WINDOW_BYTES).toBe(61440);
    expect(2 * (DEFAULT_WINDOW_BYTES + 4)).toBeLessThan(128 * 1024);
  });
});
