// Issue 12 §3: a pattern that matches the empty string at every position, with a condition that never holds on
// its empty capture, no longer costs one engine call and one evaluation per position: once `{}` is known not to
// fire, the matcher steps over empty matches with the pattern's non-empty companion (src/regex/nonempty.ts).
// The results must be those of stepping position by position: the same verdicts, firings, lines and offsets.
import { afterEach, describe, expect, it } from 'vitest';
import { loadRecipe } from '../src/recipe/index.js';
import { compileRegex } from '../src/regex/index.js';
import { ScanSession, scanLog, iterWindows } from '../src/scan/index.js';
import { classifyLogScan, planLogScan } from '../src/classifier/classify-log.js';
import { WindowedMatcher } from '../src/scan/windows.js';
import { onePatternYaml } from './support/recipes.js';

const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

function recipe(regex: string, condition: string) {
  return loadRecipe(onePatternYaml({ regex, condition, onMatch: 'fail' }), 'r.yaml');
}

afterEach(() => {
  WindowedMatcher.emptySkip = true;
});

describe('empty-match skip', () => {
  it('the companion: a superset of the non-empty matches, null where skipping would be unsafe', () => {
    const companion = (p: string) => compileRegex(p).nonEmptyCompanion;
    expect(companion('x*')).toBe('\\U00000078\\U00000078*');
    expect(companion('(?i)x*')).toBe('(?i)\\U00000078\\U00000078*');
    expect(companion('^\\s*$')).toBe('\\s\\s*$');
    expect(companion('\\b')).toBe('[^\\s\\S]'); // only ever empty: nothing to look for
    expect(companion('abc')).toBeNull(); // cannot match empty
    // A named group that can match empty: every empty match sets it to '' (issue 38), so it has a companion ...
    expect(companion('(?P<a>x*)')).toBe('(?:\\U00000078\\U00000078*)');
    // ... unless its empty matches may capture different dicts (the group takes part at a word boundary only).
    expect(companion('(?P<a>\\b)|x*')).toBeNull();
  });

  it('x* with a condition that never holds: no evaluation of the empty matches at all', () => {
    const r = recipe('x*', 'len(capture) > 0');
    let evaluated = 0;
    let found = 0;
    const s = new ScanSession(r, VARS, {
      observer: { conditionEvaluated: (_p, ms) => (evaluated += ms.length), matchFound: () => found++ },
    });
    const log = 'step 1 loss=0.5\n'.repeat(5000) + 'xx here\n';
    for (const w of iterWindows(log)) s.feed(w);
    const result = s.result();
    s.dispose();
    expect(result.detectors).toEqual([]);
    expect(classifyLogScan(planLogScan(r), result, VARS).verdict).toBe('pass');
    expect([found, evaluated]).toEqual([1, 1]); // only the one non-empty match, `xx`
  });

  const PATTERNS: [string, string][] = [
    ['x*', 'len(capture) > 0'],
    ['x*', 'exit_code == 0'], // holds on {}: fires at offset 0, no skipping
    ['(?P<a>ab)?', "len(capture) == 1 and capture['a'] == 'ab'"],
    ['(?P<n>\\d+)|\\b', "int(capture['n']) > 40"],
    ['(?m)^\\s*$|(?P<w>warn\\w*)', "len(capture) == 1 and capture['w'] == 'warnings'"],
    ['(?i)(?:k+|)', 'len(capture) > 0'],
    ['a?b?(?P<c>c)', "capture['c'] == 'c'"],
    ['(?:ab)*c?', 'len(capture) > 0'],
  ];
  const TEXTS = [
    '',
    'abc',
    'line 1\n\nline 12 warn x 41\n  \nwarnings: 7 KK ab abab c\n',
    `${'a'.repeat(300)}\n${'x 9 '.repeat(100)}\n42 warnings\n`,
    'é€😀 x\n\nab 99\n',
  ];

  it.each(PATTERNS)('%s: the same result as stepping position by position, across windows', (regex, condition) => {
    const r = recipe(regex, condition);
    for (const text of TEXTS) {
      for (const windowBytes of [16, 64, 60 * 1024]) {
        WindowedMatcher.emptySkip = false;
        const slow = scanLog(r, text, VARS, { windowBytes });
        WindowedMatcher.emptySkip = true;
        const fast = scanLog(r, text, VARS, { windowBytes });
        expect({ ...fast, tier_durations_ms: null }, `${JSON.stringify(text)} @${windowBytes}`).toEqual({
          ...slow,
          tier_durations_ms: null,
        });
      }
    }
  });
});
