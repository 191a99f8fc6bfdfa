/**
 * src/bundle/text-stream.ts: the ASCII shortcut of `StreamDecoder` against `TextDecoder` itself, and
 * `scrubbedText` (windows held as bytes in a ring) against the plain composition — the whole text decoded, cut
 * by `lineWindows`, each window scrubbed as text.
 */
import { describe, expect, it } from 'vitest';
import { HeldPieces, scrubbedText, StreamDecoder } from '../src/bundle/text-stream.js';
import { TextScrubber, type TextScrubOptions } from '../src/redact/text.js';
import { lineWindows, pieceText, type WindowPiece } from '../src/redact/windows.js';
import { rng } from './support/rng.js';

/** Byte fragments: ASCII, whole multibyte sequences, and the broken kinds (cut, stray, overlong, surrogate). */
const BYTES = [
  'a',
  'step 1 | loss=2.5\n',
  '/home/alice/x.pt ',
  '10.0.0.1 ',
  '[fe80::1] ',
  'token=abcd1234\n',
  'é',
  '𝟙',
  '€',
].map((s) => Buffer.from(s));
const BROKEN = [
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0x80],
  [0xbf, 0xbf],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xff],
].map((b) => Buffer.from(b));

function randomBytes(r: () => number, n: number, brokenShare: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const from = r() < brokenShare ? BROKEN : BYTES;
    parts.push(from[Math.floor(r() * from.length)]!);
  }
  return Buffer.concat(parts);
}

/** `bytes` cut at random points (some cuts inside a sequence). */
function chunked(r: () => number, bytes: Buffer, most: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const len = 1 + Math.floor(r() * most);
    out.push(bytes.subarray(at, at + len));
    at += len;
  }
  return out;
}

describe('StreamDecoder: TextDecoder in stream mode, with a copy for ASCII', () => {
  it('gives the same text however the bytes are cut, and calls text ASCII only when it is', () => {
    const r = rng(9);
    for (let round = 0; round < 500; round++) {
      const bytes = randomBytes(r, 1 + Math.floor(r() * 80), round % 2 === 0 ? 0.05 : 0.3);
      const want = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      const d = new StreamDecoder();
      let got = '';
      for (const c of chunked(r, bytes, round % 3 === 0 ? 4 : 40)) {
        const { text, ascii } = d.decode(c);
        if (ascii) expect(text).toMatch(/^[\x00-\x7f]*$/);
        got += text;
      }
      got += d.end();
      expect(got).toBe(want);
    }
  });

  it('turns a sequence cut by the end of the stream into U+FFFD', () => {
    const d = new StreamDecoder();
    expect(d.decode(Buffer.from([0x61, 0xe2, 0x82]))).toEqual({ text: 'a', ascii: false });
    expect(d.decode(Buffer.from('b'))).toEqual({ text: '\ufffdb', ascii: false });
    expect(d.decode(Buffer.from('c'))).toEqual({ text: 'c', ascii: true });
    expect(d.decode(Buffer.from([0xc3]))).toEqual({ text: '', ascii: false });
    expect(d.end()).toBe('\ufffd');
  });
});

const ALL: TextScrubOptions = { scrubPaths: true, scrubIpAddresses: true, scrubSecrets: true };

/** The plain composition: decode it all, cut it into the original's windows, scrub each. */
function reference(bytes: Buffer, o: TextScrubOptions): { text: string; counts: unknown } {
  const s = new TextScrubber(o);
  let text = '';
  for (const w of lineWindows(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes))) text += s.scrub(w);
  return { text, counts: s.counts };
}

function streamed(chunks: Buffer[], o: TextScrubOptions, size?: number): { text: string; counts: unknown } {
  const s = new TextScrubber(o);
  let text = '';
  for (const piece of scrubbedText(chunks, s, size)) text += piece;
  return { text, counts: s.counts };
}

describe('scrubbedText: the bundle and the bench scrub a file as its windows scrubbed as text', () => {
  it('on ASCII and broken UTF-8, cut anywhere, with a ring of any size (wrapping, full) or none', () => {
    const r = rng(11);
    for (let round = 0; round < 24; round++) {
      const bytes = randomBytes(r, 2_000 + Math.floor(r() * 40_000), round % 4 === 0 ? 0.02 : 0);
      const want = reference(bytes, ALL);
      // The ring is the file's size at most: a small size hint makes it wrap, and fill (then a piece gets its own).
      for (const size of [undefined, bytes.length, 70 * 1024, 1024])
        expect(streamed(chunked(r, bytes, round % 2 === 0 ? 50_000 : 3_000), ALL, size)).toEqual(want);
    }
  });

  it('across windows: a 13 MiB log, ring space released by the first window reused by the second', () => {
    const r = rng(12);
    const line = randomBytes(r, 3_000, 0);
    const bytes = Buffer.concat(Array.from({ length: Math.ceil((13 << 20) / line.length) }, () => line));
    // The ring is the file's size: the second window wraps onto the first's bytes once they are released.
    expect(lineWindows(bytes.toString('latin1')).length).toBe(2);
    const want = reference(bytes, ALL);
    expect(streamed(chunked(r, bytes, 4 << 20), ALL, bytes.length)).toEqual(want);
  });
});

describe('HeldPieces: a held piece reads back its text until its window is released', () => {
  it('holds windows of random pieces in rings smaller and larger than them', () => {
    const r = rng(13);
    for (const size of [64 * 1024, 100 * 1024, 300 * 1024, 1 << 20]) {
      const held = new HeldPieces(size);
      let filling: { text: string; piece: WindowPiece }[] = [];
      // Closed windows not yet scrubbed, as a splitter returns them: released after they are read.
      for (let step = 0; step < 400; step++) {
        const n = 1 + Math.floor(r() * 20_000);
        const text = String.fromCharCode(97 + (step % 26)).repeat(n) + String(step);
        filling.push({ text, piece: held.hold(text, r() < 0.9) });
        if (r() < 0.1) {
          // The window closes before its last few pieces: those were held after it, for the next window.
          const cut = Math.max(0, filling.length - Math.floor(r() * 3));
          const closed = filling.slice(0, cut);
          filling = filling.slice(cut);
          // The open window's pieces are live too, and must survive the closed one's release.
          for (const { text: t, piece } of [...closed, ...filling]) expect(pieceText(piece)).toBe(t);
          held.release([closed.map((c) => c.piece)]);
        }
        for (const { text: t, piece } of filling) expect(pieceText(piece)).toBe(t);
      }
    }
  });
});
