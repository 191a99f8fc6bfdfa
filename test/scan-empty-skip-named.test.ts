// Issue 38: the empty-match skip for patterns whose *named* group can match empty (`(?P<gap>q*)`). Every empty
// match of such a pattern captures one dict (`{'gap': ''}`, not `{}`), src/regex/nonempty.ts E1; the scanner
// evaluates the condition on it once and steps over the empty matches, counting them (E3, src/scan/scan.ts S1–S4).
// Here both paths (`WindowedMatcher.emptySkip` off: position by position; on: the skip) must give identical
// results — firing match, line, byte offset, captures, verdict inputs, `condition_errors` with its counts — on
// many patterns, conditions, logs and window sizes; and the analysis's claims are checked against the engine.
import { afterEach, describe, expect, it } from 'vitest';
import { loadRecipe } from '../src/recipe/index.js';
import { compileRegex, matchAll, searchRegex } from '../src/regex/index.js';
import { emptyMatches } from '../src/regex/nonempty.js';
import { parsePythonRegex } from '../src/regex/parse.js';
import { feedSource, iterWindows, ScanSession, scanLog, type ScanResult } from '../src/scan/index.js';
import type { Recipe } from '../src/recipe/index.js';
import { WindowedMatcher } from '../src/scan/windows.js';
import { onePatternYaml } from './support/recipes.js';

const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

afterEach(() => {
  WindowedMatcher.emptySkip = true;
});

function recipe(regex: string, condition: string) {
  return loadRecipe(onePatternYaml({ regex, condition, onMatch: 'fail' }), 'r.yaml');
}

const noTime = (r: ScanResult) => ({ ...r, tier_durations_ms: null });

/** The custom pattern alone (no Tier 4), over a text's windows or its UTF-8 bytes in 7-byte chunks. */
async function scan(r: Recipe, text: string, windowBytes: number, bytes: boolean) {
  const s = new ScanSession(r, VARS, { tier4: false });
  try {
    if (!bytes) for (const w of iterWindows(text, { windowBytes })) s.feed(w);
    else {
      const all = new TextEncoder().encode(text);
      const chunks = Array.from({ length: Math.ceil(all.length / 7) }, (_, i) => all.subarray(i * 7, i * 7 + 7));
      await feedSource(s, chunks, { windowBytes });
    }
    return noTime(s.result());
  } finally {
    s.dispose();
  }
}

/** Named groups that can match empty, and not; before, around and after; alternations both ways round. */
const CORES = [
  '(?P<gap>q*)',
  '(?P<gap>q*?)',
  '(?P<gap>q{0,2})',
  '(?P<gap>(?:qq)*)',
  '(?P<gap>q+)?',
  '(?P<gap>(?:q|)*)',
  '(?P<gap>)',
  'q*',
];
const PREFIXES = ['', 'x?', '(?P<x>x)?', '(?P<w>[a-c]+)|'];
const SUFFIXES = ['', '(?P<d>\\d+)?', '|(?P<w>[a-c]+)', '\\b', 'y*(?P<e>e*)'];
const GENERATED = CORES.flatMap((c) =>
  PREFIXES.flatMap((p) => SUFFIXES.filter((s) => !(p.includes('<w>') && s.includes('<w>'))).map((s) => `${p}${c}${s}`)),
);
const EXTRA = [
  '(?i)(?P<gap>Q*)',
  '(?P<a>(?P<b>q*)x?)',
  '(?P<z>x{0})q*',
  '(?:(?P<z>x)){0}(?P<gap>q*)',
  '(?P<gap>\\b)|q*', // the group takes part at word boundaries only: not skipped
  '(?P<g>(?P<h>q?)*)', // a named group in a loop that can pass emptily: not skipped
  '\\b|(?P<w>\\w+)', // empty matches depend on an assertion: not skipped (their number is not known)
  '(?P<w>[a-z]+)|x*',
  '(?m)^(?P<gap>q*)',
  // No named group can match empty, and the empty matches depend on assertions (E4).
  '\\b',
  '\\B',
  '\\bq*',
  '(?m)^\\s*$',
  '(?m)^|(?P<w>[a-c]+)',
  '(?m)$|q+',
  '(?P<n>\\d+)|\\b',
  '(?:\\b|x)+y*|\\B',
  '(?m)(?:^|\\b)(?P<q>q+)?',
  '^x*', // `^` without MULTILINE: no positions, not skipped
  '(?i)\\b(?P<k>k+)?',
];
const PATTERNS = [...GENERATED, ...EXTRA];

const CONDITIONS = [
  "len(capture['gap']) > 5", // never true on '' (the storm)
  "len(capture['gap']) >= 2", // fires at the first `qq`
  "capture['gap'] == ''", // true on the empty capture: fires at once
  'len(capture) == 0', // true on {} but false on {'gap': ''}
  'len(capture) > 1',
  "int(capture['gap']) > 0", // raises on '' (ValueError): every raise counted
  "len(capture['gap']) > 0 and int(capture['gap']) > 0", // false on '', raises on every q run
  "len(capture) > 0 and int(capture['w']) > 0", // raises on [a-c]+ runs only
  "len(capture) > 0 and int(capture['n']) > 99", // raises where a group other than n took part
  "capture['d'] == '41'",
  "capture['nope'] == ''", // KeyError on every match
  "len(capture['gap']) > 1 and exit_code == 0",
];

const TEXTS = [
  '',
  'q',
  'qq',
  'abc qq d\nqqqqqq 41\n',
  'line 1\n\nstep 12 loss=0.5 x 41 ee\n  q\nwarnings: 7 ab abab c qqq\n',
  `${'a'.repeat(100)}\n${'x 9 '.repeat(40)}qq\n42 warnings qqqqqqq\n`,
  'é€😀 qq 😀\n\nab 99 q😀q\n',
  '\uD800q lone\uDC00 qq\n',
];

describe('empty-match skip with named groups (issue 38)', () => {
  it('the analysis: one capture dict for every empty match, and whether the pattern matches everywhere', () => {
    const of = (p: string) => emptyMatches(parsePythonRegex(p, ''));
    const all = (capture: string[]) => ({ capture, everywhere: true, positions: '' });
    expect(of('(?P<gap>q*)')).toEqual(all(['gap']));
    expect(of('q*')).toEqual(all([]));
    expect(of('(?P<gap>q+)?')).toEqual(all([]));
    expect(of('(?P<a>(?P<b>q*)x?)')).toEqual(all(['a', 'b']));
    expect(of('(?P<w>[a-z]+)|(?P<gap>q*)(?P<d>\\d+)?')).toEqual(all(['gap']));
    expect(of('(?P<z>x{0})q*')).toEqual(all(['z']));
    // Empty matches that depend on assertions: counted at the positions where those hold (E4).
    expect(of('\\b|(?P<w>\\w+)')).toEqual({ capture: [], everywhere: false, positions: '\\b' });
    expect(of('(?m)^\\s*$')).toEqual({ capture: [], everywhere: false, positions: '(?:(?<![^\\n]))(?:(?![^\\n]))' });
    expect(of('(?:\\b|x)+y*|\\B')).toEqual({ capture: [], everywhere: false, positions: '(?:\\b)|\\B' });
    expect(of('^x*')).toEqual({ capture: [], everywhere: false, positions: null }); // `^` reads where the subject starts
    expect(of('(?P<gap>q*)\\b')).toBeNull();
    expect(of('(?P<gap>\\b)|q*')).toBeNull();
    expect(of('(?P<g>(?P<h>q?)*)')).toBeNull();
    expect(of('abc')).toBeNull();
  });

  it.each(PATTERNS)('%s: the engine agrees with the analysis (E1 one capture, E3 a match at every position)', (p) => {
    const re = compileRegex(p);
    try {
      const empties = re.emptyMatches;
      if (empties === null) return;
      const c0 = Object.fromEntries(empties.capture.map((n) => [n, '']));
      for (const text of TEXTS) {
        for (const m of matchAll(re, text)) if (m.end === m.index) expect(m.named, JSON.stringify(text)).toEqual(c0);
        if (empties.positions === null) continue;
        const z = new RegExp(empties.positions, 'uy');
        for (let q = 0; q <= text.length; q++) {
          if (q > 0 && q < text.length && /[\uDC00-\uDFFF]/.test(text[q]!) && /[\uD800-\uDBFF]/.test(text[q - 1]!))
            continue; // inside a surrogate pair: not a position
          const m = searchRegex(re, text, q);
          if (m !== null && m.index === q && m.end > q) continue; // a non-empty match here: E3/E4 say nothing
          z.lastIndex = q;
          // E3: everywhere, the pattern matches (emptily) here; E4: it does exactly where `positions` holds.
          const at = `${JSON.stringify(text)} @${q}`;
          expect(m?.index === q, at).toBe(empties.everywhere || z.test(text));
        }
      }
    } finally {
      re.dispose();
    }
  });

  it.each(PATTERNS)('%s: the skip gives the results of stepping position by position', async (regex) => {
    const seed = PATTERNS.indexOf(regex);
    for (const [c, condition] of CONDITIONS.entries()) {
      const r = recipe(regex, condition);
      // Half of the texts for each pair, a different half from one pair to the next (the suite's time).
      for (const text of TEXTS.filter((_, t) => (seed + c + t) % 2 === 0)) {
        // Text windows of 16 bytes (matches cut at window ends, runs across windows); byte windows (the CLI's
        // path, with their ASCII flag) of 64, one window for most texts.
        for (const [windowBytes, bytes] of [
          [16, false],
          [64, true],
        ] as const) {
          const what = `${condition} on ${JSON.stringify(text)} @${windowBytes}${bytes ? ' bytes' : ''}`;
          WindowedMatcher.emptySkip = false;
          const slow = await scan(r, text, windowBytes, bytes);
          WindowedMatcher.emptySkip = true;
          expect(await scan(r, text, windowBytes, bytes), what).toEqual(slow);
        }
      }
    }
  });

  it('the skip is taken: the condition is evaluated on the non-empty matches only', () => {
    const r = recipe('(?P<gap>q*)', "len(capture['gap']) > 5");
    let evaluated = 0;
    let found = 0;
    const s = new ScanSession(r, VARS, {
      observer: { conditionEvaluated: (_p, ms) => (evaluated += ms.length), matchFound: () => found++ },
    });
    for (const w of iterWindows(`${'step 1 loss=0.5\n'.repeat(5000)}qq here\n`)) s.feed(w);
    const result = s.result();
    s.dispose();
    expect(result.detectors).toEqual([]);
    expect([found, evaluated]).toEqual([1, 1]); // only the one non-empty match, `qq`
  });

  it('a ~200 KB log: the firing, and the evaluated count of a condition raising on every q run', () => {
    const line = '[2026-12-06 02:34:01] step 17 | loss=0.4812 | lr=1.0e-04 | grad_norm=1.204 | tokens/s=41023\n';
    const n = Math.ceil(200_000 / line.length); // 2,084 lines
    const log = `${line.repeat(n)}warn qq\n${line.repeat(3)}gap qqqqqqq here\n${line}`;
    expect(log.length).toBeGreaterThan(200_000);
    const at = n + 5; // the line of `qqqqqqq`
    const long = scanLog(recipe('(?P<gap>q*)', "len(capture['gap']) > 5"), log, VARS);
    expect(long.detectors).toEqual([
      {
        id: 'custom:p',
        kind: 'fail',
        line: at,
        byte_offset: log.indexOf('qqqqqqq'),
        match: 'qqqqqqq',
        capture: { gap: 'qqqqqqq' },
      },
    ]);
    expect(long.condition_errors).toEqual([]);
    const never = scanLog(recipe('(?P<gap>q*)', "len(capture['gap']) > 7"), log, VARS);
    expect([never.detectors, never.condition_errors]).toEqual([[], []]);
    // Raises on the two q runs; every position without a q is an empty match, and the end of the text one more.
    const raising = scanLog(recipe('(?P<gap>q*)', "len(capture['gap']) > 0 and int(capture['gap']) > 0"), log, VARS);
    expect(raising.detectors).toEqual([]);
    expect(raising.condition_errors).toEqual([
      {
        pattern: 'custom:p',
        error: 'ValueError',
        raised: 2,
        evaluated: log.length - 9 + 2 + 1,
        line: n + 1,
        byte_offset: log.indexOf('qq'),
      },
    ]);
  });
});
