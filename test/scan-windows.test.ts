import { describe, expect, it } from 'vitest';
import { advanceBytes } from '../src/scan/windows.js';
import { rng } from './support/rng.js';

/** The definition advanceBytes implements: whole code points, UTF-8 bytes ≤ budget, at least one. */
function reference(s: string, from: number, budget: number): number {
  let i = from;
  let used = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const b = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (used + b > budget && i > from) break;
    used += b;
    i += pair ? 2 : 1;
  }
  return i;
}

describe('advanceBytes', () => {
  it('agrees with the per-character definition on mixed text (ASCII, 2-, 3-, 4-byte, lone surrogates)', () => {
    const next = rng(99);
    const pieces = ['a', 'bc', 'é', '€', '😀', '\ud800', '\udc00', 'x'.repeat(50), '\n'];
    for (let k = 0; k < 3000; k++) {
      let s = '';
      const n = Math.floor(next() * 40);
      for (let j = 0; j < n; j++) s += pieces[Math.floor(next() * pieces.length)]!;
      const from = Math.floor(next() * (s.length + 1));
      const budget = Math.floor(next() * 80);
      expect(advanceBytes(s, from, budget), JSON.stringify({ s, from, budget })).toBe(reference(s, from, budget));
    }
  });
});
