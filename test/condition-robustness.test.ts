import { describe, expect, it } from 'vitest';
import { SandboxError, validateCondition } from '../src/index.js';
import { parseExpression } from '../src/condition/parser.js';
import { PySyntaxError } from '../src/condition/syntax-error.js';
import { rng } from './support/rng.js';

const PIECES = [
  'capture',
  "['loss']",
  'exit_code',
  'walltime_sec',
  'peak_vram_mib',
  'math',
  '.isnan',
  '.isinf',
  'float',
  'int',
  'len',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  ':=',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '<>',
  '+',
  '-',
  '*',
  '**',
  '/',
  '//',
  '%',
  '@',
  '~',
  '&',
  '|',
  '^',
  '<<',
  '>>',
  ' and ',
  ' or ',
  'not ',
  ' in ',
  ' is ',
  ' if ',
  ' else ',
  'lambda ',
  ' for ',
  'await ',
  'yield ',
  '...',
  'True',
  'None',
  '0',
  '1_0',
  '0x1F',
  '0o7',
  '0b1',
  '1.5e3',
  '2j',
  '07',
  '1__0',
  '1if',
  "'s'",
  '"d"',
  "'''t'''",
  "f'{",
  "f'{x!r:>{w}}'",
  "rb'\\x'",
  "'\\N{BULLET}'",
  "'\\N{",
  "b'é'",
  '#c',
  '\\\n',
  '\n',
  '\r\n',
  '\t',
  '\f',
  ' ',
  '\0',
  '\ud800',
  '😀',
  'ｅ',
  '€',
  '\u00a0',
  '\ufeff',
  '_',
];

const SEEDS = [
  "math.isnan(float(capture['loss']))",
  'walltime_sec > 60 and peak_vram_mib > 0',
  "exit_code == 137 and len(capture['msg']) > 0",
  "int(capture['code']) == 137",
  "f'{capture[\"x\"]!r:>{exit_code}}' 'tail'",
  '[x for x in (lambda *a, b=1, **k: a)(1) if x]',
];

function randomCase(next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const mode = next();
  if (mode < 0.4) {
    let s = '';
    const n = 1 + Math.floor(next() * 30);
    for (let i = 0; i < n; i++) s += pick(PIECES);
    return s;
  }
  if (mode < 0.8) {
    const chars = [...pick(SEEDS)];
    const edits = 1 + Math.floor(next() * 4);
    for (let k = 0; k < edits; k++) {
      const at = Math.floor(next() * (chars.length + 1));
      const op = next();
      if (op < 0.3) chars.splice(at, 1 + Math.floor(next() * 3));
      else if (op < 0.6) chars.splice(at, 0, ...pick(PIECES));
      else if (op < 0.8) chars.length = at;
      else if (chars.length > 1) {
        const j = Math.floor(next() * chars.length);
        [chars[at % chars.length], chars[j]] = [chars[j]!, chars[at % chars.length]!];
      }
    }
    return chars.join('');
  }
  // Random code points, astral and surrogate ranges included.
  let s = '';
  const n = Math.floor(next() * 40);
  for (let i = 0; i < n; i++) {
    const r = next();
    const cp =
      r < 0.6 ? 0x20 + Math.floor(next() * 0x5f) : r < 0.8 ? Math.floor(next() * 0x800) : Math.floor(next() * 0x110000);
    s += cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
  }
  return s;
}

describe('robustness', () => {
  it('100,000 random strings and mutations only ever raise SandboxError', () => {
    const next = rng(20261129);
    const counts = { accepted: 0, rejected: 0 };
    for (let i = 0; i < 100_000; i++) {
      const text = randomCase(next);
      try {
        validateCondition(text);
        counts.accepted++;
      } catch (e) {
        if (!(e instanceof SandboxError)) throw new Error(`case ${i} ${JSON.stringify(text)} threw ${String(e)}`);
        expect(Number.isInteger(e.line) && e.line >= 1 && Number.isInteger(e.col) && e.col >= 1).toBe(true);
        counts.rejected++;
      }
    }
    // The generator must exercise both outcomes, or this test proves little.
    expect(counts.accepted).toBeGreaterThan(1000);
    expect(counts.rejected).toBeGreaterThan(50_000);
  }, 120_000);

  it.each([
    ['parentheses', `${'('.repeat(10_000)}1${')'.repeat(10_000)}`, 'too many nested parentheses'],
    ['brackets', `${'['.repeat(10_000)}`, 'too many nested parentheses'],
    ['unary minus', `${'-'.repeat(10_000)}1`, 'too many nested expressions (parser stack overflow)'],
    ['not', `${'not '.repeat(10_000)}1`, 'too many nested expressions (parser stack overflow)'],
    ['lambda', `${'lambda:'.repeat(10_000)}1`, 'too many nested expressions (parser stack overflow)'],
    ['ternary', `${'1 if 1 else '.repeat(10_000)}1`, 'too many nested expressions (parser stack overflow)'],
    ['power', `${'2**'.repeat(10_000)}1`, 'too many nested expressions (parser stack overflow)'],
  ])('10,000-deep %s is a clean syntax error from the parser itself', (_name, text, msg) => {
    let caught: unknown;
    try {
      parseExpression(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PySyntaxError);
    expect((caught as PySyntaxError).msg).toBe(msg);
    // Through the public API the length cap answers first.
    expect(() => validateCondition(text)).toThrow(/exceeds the 256-character cap/);
  });

  it('deep but legal chains parse without recursion trouble', () => {
    expect(parseExpression(`a${'.b'.repeat(10_000)}`).body.type).toBe('Attribute');
    expect(parseExpression(`f${'()'.repeat(5_000)}`).body.type).toBe('Call');
    expect(parseExpression(`${'1 or '.repeat(10_000)}1`).body.type).toBe('BoolOp');
  });
});
