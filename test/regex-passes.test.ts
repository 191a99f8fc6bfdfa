import { describe, expect, it } from 'vitest';
import { fastPathVerdict } from '../src/regex/fast-path.js';
import { compileRegex, RegexSyntaxError } from '../src/regex/index.js';
import { requiredLiterals } from '../src/regex/literals.js';
import { parsePythonRegex } from '../src/regex/parse.js';

describe('the fast path names the proof step a pattern fails', () => {
  it.each([
    ['(a+)+$', '1-quantified-group', 0],
    ['\\d+ms', '2b-restart', 0],
    ['a.*b', '2a-backoff', 1],
    ['x\\d+\\b', '2c-assertion-after-run', 1],
    ['^foo', '1-anchor', 0],
    ['foo\\Z', '1-anchor', 3],
    ['a(?:b)+', '1-quantified-group', 1],
    ['a*(?:b)?c', '2b-start', 0],
    ['x[a-z]+(?:b)?c', '2a-backoff', 1],
    ['(?:b)?c', '2b-start', 0],
    ['a(?:(?:b)?c|d)', '2a-choice', 4],
    ['a*b', '2b-start', 0],
    ['(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)x', '2d-branching', 0],
    ['a(?:b+|c)', '2a-choice', 4],
    ['ab{0}', '2a-zero-repeat', 1],
    ['a[^\\d\\D]', '1-empty-class', 1],
  ] as const)('%s: %s at %d', (pattern, rule, at) => {
    expect(fastPathVerdict(parsePythonRegex(pattern))).toEqual({ ok: false, rule, at });
  });

  it('RE2-only syntax never reaches it: Python rejects the pattern first', () => {
    for (const p of ['\\pL+x', 'a{2}{3}']) expect(() => parsePythonRegex(p)).toThrow(RegexSyntaxError);
  });

  it('flags are in the nodes: MULTILINE without anchors, IGNORECASE and DOTALL keep the fast path', () => {
    for (const [pattern, flags] of [
      ['VM_L2_PROTECTION_FAULT', 'm'],
      ['.', 'i'],
      ['a[0-9]+', 's'],
      ['a.', 's'],
      ['a1', 'i'],
      ['(?i)foo', ''],
      ['a(?i:b)', ''],
    ] as const) {
      const h = compileRegex(pattern, flags);
      try {
        expect(h.fast, `${pattern} /${flags}`).not.toBeNull();
      } finally {
        h.dispose();
      }
    }
  });
});

describe('required literals read the tree, not the RE2 spelling', () => {
  it.each([
    // Case-insensitive characters whose Python equivalents are an ASCII letter's count as that letter.
    ['(?i)ı{2}', '', [['i']], true],
    ['(?i)[İ]x', '', [['ix']], true],
    ['ſx', 'i', [['sx']], true],
    ['\u212ax', 'i', [['kx']], true],
    // A set of one code point is that character.
    ['[a]b', '', [['ab']], false],
    ['(?i)[1]2', '', [['12']], false],
    // Only a character IGNORECASE gives several cases makes the set case-insensitive.
    ['(?i:\\d+)abc', '', [['abc']], false],
    ['(?-i:abc)', 'i', [['abc']], false],
    ['(?-i:é)\\d', 'i', [['é']], false],
    ['(?i)[Ss]x', '', [['sx']], true], // [Ss] under IGNORECASE is s, ſ and S: the equivalents of s
  ] as const)('%s /%s → %j', (pattern, flags, clauses, caseInsensitive) => {
    expect(requiredLiterals(pattern, flags)).toEqual({ clauses, caseInsensitive });
  });

  it.each([
    ['(?i)é', ''], // simple case folding cannot check É/é soundly
    ['(?i)[ab]', ''], // a set of several letters is no literal
  ])('%s /%s → null', (pattern, flags) => {
    expect(requiredLiterals(pattern, flags)).toBeNull();
  });

  it('a clause with fewer strings is kept over one as short when clauses must be dropped', () => {
    const set = requiredLiterals('(?:a|x).(?:b|x).(?:c|x).(?:d|x).(?:e|x).(?:f|x).s');
    expect(set?.clauses).toEqual([['a', 'x'], ['b', 'x'], ['c', 'x'], ['d', 'x'], ['e', 'x'], ['s']]);
  });
});
