/** src/text/inert.ts: the one escaping of trial-derived text for terminals (issue 33 §5). */
import { describe, expect, it } from 'vitest';
import { inertLine, inertLines } from '../src/text/inert.js';

describe('inertLine / inertLines', () => {
  it('escapes C0 (but tab), DEL, C1 and the Unicode line separators as Python repr writes them', () => {
    expect(inertLine('\x1b]52;c;cHduZWQ=\x07 a\tb\x00\x7f\x9b\r\n\u0085\u2028\u2029')).toBe(
      '\\x1b]52;c;cHduZWQ=\\x07 a\tb\\x00\\x7f\\x9b\\x0d\\x0a\\x85\\u2028\\u2029',
    );
    expect(inertLines('one\x1b[2K\r\ntwo\n')).toBe('one\\x1b[2K\\x0d\ntwo\n');
  });

  it('returns text without controls unchanged, non-ASCII letters and backslashes included', () => {
    for (const s of ['', 'loss=nan at step 7', 'Größe \\x1b ✓ 日本', '\u00a0\u00ff\u0100'])
      expect([inertLine(s), inertLines(s)]).toEqual([s, s]);
  });

  it('leaves no control code point whatever the input (every code point below 0x3000)', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c++) if (c < 0xd800 || c > 0xdfff) all += String.fromCodePoint(c);
    const bad = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/u;
    expect(bad.test(inertLine(all))).toBe(false);
    expect(bad.test(inertLines(all).replaceAll('\n', ''))).toBe(false);
  });
});
