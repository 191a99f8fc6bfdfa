import { describe, expect, it } from 'vitest';
import { compileRegex, searchRegex } from '../src/regex/index.js';
import { requiredLiterals, windowMayMatch } from '../src/regex/literals.js';
import { rng } from './support/rng.js';

const lits = (p: string, flags = '') => requiredLiterals(p, flags);

describe('required literals', () => {
  it.each([
    ['FATAL: (?P<why>.+)', [['FATAL: ']], false],
    ['exit status (?P<code>\\d+)', [['exit status ']], false],
    ['hipError_[A-Za-z0-9_]+|HIP error:', [['hipError_', 'HIP error:']], false],
    ['^Traceback \\(most recent call last\\):', [['Traceback (most recent call last):']], false],
    ['Error code: \\d+', [['Error code: ']], false],
    // Exact parts multiply out: every match is one of three strings (compared case-insensitively).
    ['(?i)loss(?: is)? nan|loss=nan', [['loss is nan', 'loss nan', 'loss=nan']], true],
    ['a(?:b|c)d?e', [['abde', 'abe', 'acde', 'ace']], false],
    ['x(?:yz)?', [['x']], false],
    ['(?:a|b){2}c', [['a', 'b'], ['c']], false],
    ['a{1}b', [['ab']], false],
    ['(?i)watchdog', [['watchdog']], true],
    ['a+b', [['a'], ['b']], false],
    ['(abc)+', [['abc']], false],
    ['(abc)*x', [['x']], false],
    ['x?', null, false],
    ['a|', null, false],
    ['\\d+', null, false],
    ['caf\\xe9', [['café']], false],
    ['(?i)kill', [['kill']], true],
  ] as const)('%s → %j', (pattern, expected, ci) => {
    const set = lits(pattern);
    if (expected === null) expect(set).toBeNull();
    else expect(set).toEqual({ clauses: expected, caseInsensitive: ci });
  });

  it('a compile flag i makes the set case-insensitive', () => {
    expect(lits('Watchdog', 'i')).toEqual({ clauses: [['Watchdog']], caseInsensitive: true });
    expect(windowMayMatch(lits('Watchdog', 'i')!, 'the WATCHDOG fired')).toBe(true);
  });

  it('a window without any literal is skipped', () => {
    const set = lits('exit status (?P<code>\\d+)')!;
    expect(windowMayMatch(set, 'step 10 loss=0.5\n')).toBe(false);
    expect(windowMayMatch(set, 'process exit status 3\n')).toBe(true);
    // All clauses must hold: a clean training log (loss lines, no NaN) skips the nan signature.
    const nan = lits('(?i)loss(?: is)? nan|loss=nan')!;
    expect(windowMayMatch(nan, 'step 1 loss=0.5\nstep 2 loss=0.4\n')).toBe(false);
    expect(windowMayMatch(nan, 'step 3 Loss is NaN\n')).toBe(true);
  });
});

describe('prefilter differential', () => {
  it('never skips a window RE2 would match in (2,000 generated patterns x 10 texts)', () => {
    const next = rng(4242);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const ATOMS = [
      'a',
      'b',
      'k',
      's',
      'K',
      'S',
      'é',
      '😀',
      '.',
      '\\d',
      '\\w',
      '[ab]',
      '[^a]',
      '\\.',
      ' ',
      'x',
      'ab',
      'ks',
    ];
    const QUANTS = ['', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,}', '+?'];
    const genPattern = (depth: number): string => {
      let out = '';
      const n = 1 + Math.floor(next() * 4);
      for (let i = 0; i < n; i++) {
        const r = next();
        let atom: string;
        if (depth < 2 && r < 0.15) atom = `(${genPattern(depth + 1)}|${genPattern(depth + 1)})`;
        else if (depth < 2 && r < 0.22) atom = `(?:${genPattern(depth + 1)})`;
        else if (depth < 2 && r < 0.26) atom = `(?i:${genPattern(depth + 1)})`;
        else atom = pick(ATOMS);
        out += atom + pick(QUANTS);
      }
      return out;
    };
    const TEXT = [
      'a',
      'b',
      'k',
      's',
      'K',
      'S',
      '\u212a',
      '\u017f',
      'é',
      'É',
      '😀',
      '.',
      '1',
      ' ',
      'x',
      'X',
      'ab',
      'ks',
      '\n',
    ];
    let skipped = 0;
    let checked = 0;
    for (let i = 0; i < 2000; i++) {
      const body = genPattern(0);
      const pattern = next() < 0.2 ? `(?i)${body}` : body;
      const flags = next() < 0.1 ? 'i' : '';
      let re: ReturnType<typeof compileRegex>;
      try {
        re = compileRegex(pattern, flags);
      } catch {
        continue; // not a valid pattern (e.g. a repeated quantifier); nothing to filter
      }
      const set = re.literals; // what the scanner's prefilter uses
      for (let j = 0; j < 10; j++) {
        let text = '';
        const len = Math.floor(next() * 12);
        for (let k = 0; k < len; k++) text += pick(TEXT);
        checked++;
        if (set !== null && !windowMayMatch(set, text)) {
          skipped++;
          const m = searchRegex(re, text);
          expect(
            m,
            `pattern ${JSON.stringify(pattern)} flags ${flags} text ${JSON.stringify(text)} literals ${JSON.stringify(set)}`,
          ).toBeNull();
        }
      }
      re.dispose();
    }
    // The generator must exercise the skip path, or this test proves little.
    expect(skipped).toBeGreaterThan(1000);
    expect(checked).toBeGreaterThan(10_000);
  }, 120_000);
});
