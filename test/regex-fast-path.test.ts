import { describe, expect, it } from 'vitest';
import { compileRegex, matchAll, type RegexMatch } from '../src/regex/index.js';
import { fastPathSource } from '../src/regex/fast-path.js';
import { parsePythonRegex } from '../src/regex/parse.js';
import { rng } from './support/rng.js';

const fast = (pattern: string, flags = '') => fastPathSource(parsePythonRegex(pattern, flags));

describe('fast-path subset: which patterns run on V8 RegExp', () => {
  it.each([
    ['loss=(?P<loss>[0-9.]+)', '[\\u{6c}][\\u{6f}][\\u{73}][\\u{73}][\\u{3d}]([\\u{2e}\\u{30}-\\u{39}]{1,})'],
    [
      'FATAL: (.+)',
      '[\\u{46}][\\u{41}][\\u{54}][\\u{41}][\\u{4c}][\\u{3a}][\\u{20}]([\\u{0}-\\u{9}\\u{b}-\\u{10ffff}]{1,})',
    ],
    ['a[0-9]+?b|c', '[\\u{61}][\\u{30}-\\u{39}]{1,}?[\\u{62}]|[\\u{63}]'],
    ['(?:x|yz)[\\t\\n\\f\\r ]', '(?:[\\u{78}]|[\\u{79}][\\u{7a}])[\\u{9}-\\u{a}\\u{c}-\\u{d}\\u{20}]'],
    // IGNORECASE as Python's sets (k also matches the Kelvin sign, i the dotted and dotless I), no `i` flag.
    ['(?i)ki', '[\\u{4b}\\u{6b}\\u{212a}][\\u{49}\\u{69}\\u{130}-\\u{131}]'],
    ['a(?s:.)', '[\\u{61}](?:[\\u{0}-\\u{10ffff}])'],
    // One optional pass is a choice with an empty alternative, in the quantifier's order.
    ['a(?: b)?c', '[\\u{61}](?:(?:[\\u{20}][\\u{62}])|)[\\u{63}]'],
    ['a(b)??c', '[\\u{61}](?:|([\\u{62}]))[\\u{63}]'],
    ['a(?:b|)c', '[\\u{61}](?:[\\u{62}]|)[\\u{63}]'],
  ])('%s → %s', (pattern, js) => {
    expect(fast(pattern)).toBe(js);
  });

  it('^ under MULTILINE is a line start: no code point but \\n before it', () => {
    expect(fast('^Tb', 'm')).toBe('(?<![^\\n])[\\u{54}][\\u{62}]');
    const h = compileRegex('^Tb', 'm');
    try {
      // The search starts after "x": the text before the start position decides, as in RE2.
      expect(plain(matchAll(h, 'xTb\nTb\rTb', 1))).toEqual([{ index: 4, end: 6, match: 'Tb', groups: [], named: {} }]);
      expect(plain(matchAll(h, 'Tb', 0)).map((m) => m.index)).toEqual([0]);
    } finally {
      h.dispose();
    }
  });

  it.each([
    ['(a+)+$', 'quantified group and anchor'],
    ['\\d+ms', 'a match can start inside the run it backs off'],
    ['a.*b', '. backs off onto b'],
    ['x\\d+\\b', 'only an assertion follows the repetition'],
    ['^foo', 'anchors are window-dependent'],
    ['a*b', 'optional first item'],
    ['(?: a)?b', 'optional first group'],
    ['a[^c]*(?:b)?c', 'a run backs off onto an optional group'],
    ['a(?:bc)*d', 'a group repeated more than once'],
    ['(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)x', '32 alternatives at one position'],
  ])('%s stays on RE2 (%s)', (pattern) => {
    expect(fast(pattern)).toBeNull();
  });

  it('the NaN pattern of Tier 4 runs on V8, compiled without the i flag', () => {
    const h = compileRegex('loss(?: is)? NaN|loss=nan', 'i');
    try {
      expect(h.fast?.flags).toBe('gu');
      const text = 'x LOSS IS nan; Loss NaN; loss=NAN; loss is  nan; loſs=nan';
      expect(plain(matchAll(h, text)).map((m) => m.match)).toEqual(['LOSS IS nan', 'Loss NaN', 'loss=NAN', 'loſs=nan']);
      expect(plain(matchAll(h, text))).toEqual(plain(matchAll(h, text, 0, { engine: 're2' })));
    } finally {
      h.dispose();
    }
  });
});

/** Random patterns from pieces of the subset (and a little outside it), valid in Python and RE2 syntax. */
function genPattern(next: () => number, shape: 'any' | 'optional'): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const atoms = [
    'a',
    'b',
    '1',
    ' ',
    '=',
    ':',
    '\\.',
    '-',
    '\\d',
    '\\w',
    '\\s',
    '\\D',
    '\\S',
    '\\W',
    '.',
    '[ab]',
    '[^a]',
    '[0-9.]',
    '[a-c1]',
    '[^\\n ]',
    '\\t',
    'é',
    '😀',
    '\\x41',
    'k',
    'i',
    's',
    'K',
    '[k-t]',
  ];
  const quants = ['', '', '', '+', '*', '?', '{2}', '{1,3}', '{2,}', '+?', '*?'];
  let groups = 0;
  // `fixed`: fixed-length items only, as an optional group's body must be for the fast path to take it.
  const seq = (depth: number, fixed = false): string => {
    let s = '';
    const n = 1 + Math.floor(next() * 4);
    for (let i = 0; i < n; i++) {
      const r = next();
      if (r < 0.2 && depth < 2) {
        const kind = pick(['(', '(?:', '(?P<', '(?i:', '(?s:', '(?-i:']);
        const open = kind === '(?P<' ? `(?P<g${groups++}>` : kind;
        const quant = pick(['', '', '?', '??', '+']);
        const inner = fixed || quant === '?' || quant === '??';
        const alts = next() < 0.4 ? [seq(depth + 1, inner), seq(depth + 1, inner)] : [seq(depth + 1, inner)];
        s += `${open}${alts.join('|')})${quant}`;
      } else if (r < 0.25 && !fixed) s += '\\b';
      else if (r < 0.29 && !fixed) s += '^';
      else s += pick(atoms) + (fixed ? pick(['', '', '{2}']) : pick(quants));
    }
    return s;
  };
  if (shape === 'optional') {
    // A mandatory fixed head, then an optional group, then anything: the shape the fast path takes them in.
    const body = next() < 0.4 ? `${seq(1, true)}|${seq(1, true)}` : seq(1, true);
    return `${seq(1, true)}${pick(['(', '(?:', '(?i:'])}${body})${pick(['?', '??'])}${seq(1)}`;
  }
  return next() < 0.2 ? `${seq(0)}|${seq(0)}` : seq(0);
}

function genText(next: () => number, n: number): string {
  // Python's case partners outside ASCII (Kelvin sign, long s, dotted and dotless I) test IGNORECASE.
  const chars = ['a', 'b', '1', '2', ' ', '=', ':', '.', '-', '\n', '\t', 'é', '😀', 'A', 'K', '_', 'c', 'k', 's', 'S'];
  const partners = ['\u212a', '\u017f', '\u0130', '\u0131', 'i', 'I'];
  let s = '';
  for (let i = 0; i < n; i++) {
    const from = next() < 0.1 ? partners : chars;
    s += from[Math.floor(next() * from.length)];
  }
  return s;
}

const plain = (ms: Iterable<RegexMatch>) => [...ms].map((m) => ({ ...m }));

describe('fast path equals re2-wasm', () => {
  it('on generated patterns and texts', () => {
    const next = rng(20261130);
    let eligible = 0;
    let matches = 0;
    let lineStarts = 0;
    let caseless = 0;
    let optionalGroups = 0;
    for (let k = 0; k < 1500; k++) {
      const pattern = genPattern(next, k % 4 === 0 ? 'optional' : 'any');
      // MULTILINE on half of them: `^` is then on the fast path (a line start), else it keeps the pattern on RE2;
      // IGNORECASE and DOTALL on some.
      const flags = (next() < 0.5 ? 'm' : '') + (next() < 0.4 ? 'i' : '') + (next() < 0.2 ? 's' : '');
      const re = compileRegex(pattern, flags);
      try {
        if (re.fast === null) continue;
        eligible++;
        if (pattern.includes('^')) lineStarts++;
        if (flags.includes('i') || pattern.includes('(?i:')) caseless++;
        if (/\)\?/.test(pattern)) optionalGroups++;
        for (let t = 0; t < 4; t++) {
          const text = genText(next, 1 + Math.floor(next() * 120));
          const from = Math.floor(next() * 4);
          const viaRe2 = plain(matchAll(re, text, from, { engine: 're2' }));
          const viaV8 = plain(matchAll(re, text, from));
          matches += viaRe2.length;
          expect({ pattern, flags, text, from, matches: viaV8 }).toEqual({
            pattern,
            flags,
            text,
            from,
            matches: viaRe2,
          });
        }
      } finally {
        re.dispose();
      }
    }
    // The generator must exercise the fast path for this test to mean anything.
    expect(eligible).toBeGreaterThan(300);
    expect(lineStarts).toBeGreaterThan(30);
    expect(caseless).toBeGreaterThan(100);
    expect(optionalGroups).toBeGreaterThan(30);
    expect(matches).toBeGreaterThan(3000);
  }, 60_000);

  it('a text with a lone surrogate is matched by RE2 (which reads it as U+FFFD)', () => {
    const re = compileRegex('a(?P<x>.)b');
    try {
      expect(re.fast).not.toBeNull();
      const [m] = [...matchAll(re, 'za\ud800b')];
      expect(m).toMatchObject({ index: 1, end: 4, match: 'a\ud800b', named: { x: '\ufffd' } });
    } finally {
      re.dispose();
    }
  });

  it('a group named __proto__ is an own key', () => {
    const re = compileRegex('v=(?P<__proto__>\\d+)');
    try {
      const [m] = [...matchAll(re, 'v=42')];
      expect(Object.keys(m!.named)).toEqual(['__proto__']);
      expect(Object.getPrototypeOf(m!.named)).toBe(Object.prototype);
    } finally {
      re.dispose();
    }
  });
});
