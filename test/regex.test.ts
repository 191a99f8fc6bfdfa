import { describe, expect, it } from 'vitest';
import { RecipeSchemaError } from '../src/condition/errors.js';
import {
  MAX_SUBJECT_UTF8_BYTES,
  RegexCache,
  RegexDisposedError,
  RegexSubjectTooLargeError,
  RegexSyntaxError,
  compileRegex,
  flagsFromPython,
  heapProbe,
  matchAll,
  searchRegex,
  testRegex,
  translatePythonRegex,
  utf8ByteLength,
  type RegexSyntaxErrorKind,
} from '../src/regex/index.js';
import { newRawRE2 } from '../src/regex/engine.js';

function syntaxError(pattern: string, flags = ''): RegexSyntaxError {
  try {
    compileRegex(pattern, flags).dispose();
  } catch (err) {
    expect(err).toBeInstanceOf(RegexSyntaxError);
    expect(err).toBeInstanceOf(RecipeSchemaError);
    return err as RegexSyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(pattern)} to be rejected`);
}

function all(pattern: string, text: string, flags = '', from = 0) {
  const re = compileRegex(pattern, flags);
  try {
    return [...matchAll(re, text, from)];
  } finally {
    re.dispose();
  }
}

describe('re2-wasm facts this module relies on', () => {
  it('accepts (?P<name>…) natively, rejects (?<name>…), and reads a{,3} as a literal', () => {
    const p = newRawRE2('(?P<n>\\d+)', false, false);
    expect(p.ok()).toBe(true);
    p.delete();
    const a = newRawRE2('(?<n>\\d+)', false, false);
    expect(a.ok()).toBe(false);
    a.delete();
    const lit = newRawRE2('a{,3}', false, false);
    expect(lit.ok()).toBe(true);
    expect(lit.match('aa', 0, false).index).toBe(-1);
    expect(lit.match('xa{,3}', 0, false).index).toBe(1);
    lit.delete();
  });
});

describe('compile cache and disposal', () => {
  it('counts hits and misses and hands out independent leases', () => {
    const cache = new RegexCache({ maxIdle: 2 });
    const a = cache.compile('ab+c');
    const b = cache.compile('ab+c');
    const c = cache.compile('ab+c', 'i');
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 2, live: 2, idle: 0, compiled: 2, deleted: 0 });
    expect(a).not.toBe(b);
    a.dispose();
    a.dispose(); // idempotent
    expect(a.disposed).toBe(true);
    expect(() => searchRegex(a, 'abbc')).toThrow(RegexDisposedError);
    expect(searchRegex(b, 'xabbc')?.index).toBe(1); // the other lease still works
    b.dispose();
    c.dispose();
    expect(cache.stats()).toMatchObject({ live: 0, idle: 2, deleted: 0 });
    const again = cache.compile('ab+c'); // served from the idle list
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 2, live: 1, idle: 1 });
    again.dispose();
    cache.compile('x').dispose(); // third idle entry evicts the oldest
    expect(cache.stats()).toMatchObject({ idle: 2, compiled: 3, deleted: 1 });
    cache.clear();
    expect(cache.stats()).toMatchObject({ live: 0, idle: 0, compiled: 3, deleted: 3 });
  });

  it('normalises flags in the cache key ("mi" = "im", u implied) and rejects unknown flags', () => {
    const cache = new RegexCache();
    const a = cache.compile('a', 'mi');
    const b = cache.compile('a', 'uim');
    expect(a.flags).toBe('im');
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    a.dispose();
    b.dispose();
    cache.clear();
    expect(() => cache.compile('a', 'x')).toThrow(/unsupported regex flag "x"/);
    expect(flagsFromPython(['re.MULTILINE', 'IGNORECASE', 'S'])).toBe('ims');
    expect(() => flagsFromPython(['VERBOSE'])).toThrow(RegexSyntaxError);
  });

  it('frees programs: compile/dispose cycles do not grow the heap', () => {
    const cycles = Number(process.env.REGEX_CYCLES ?? 25_000); // 100_000 with REGEX_CYCLES=100000 (~15 s)
    const cache = new RegexCache({ maxIdle: 0 });
    const before = heapProbe();
    const t0 = performance.now();
    for (let i = 0; i < cycles; i++) {
      const re = cache.compile(`a(b*)c(?P<n>d)${i % 10}`);
      re.dispose();
    }
    const ms = performance.now() - t0;
    const after = heapProbe();
    const stats = cache.stats();
    expect(stats).toMatchObject({ compiled: cycles, deleted: cycles, live: 0, idle: 0 });
    expect(after.heapBytes).toBe(16 * 1024 * 1024);
    // Without .delete() a few KB leak per compile and ~11.6k compiles abort the module.
    expect(after.probe1MiBAddress).toBeLessThanOrEqual(before.probe1MiBAddress + 64 * 1024);
    expect(after.emvalHandles).toBe(before.emvalHandles);
    console.info(
      `[regex] ${cycles} compile/dispose cycles: ${((ms * 1000) / cycles).toFixed(1)} µs/cycle; ` +
        `1 MiB probe address ${before.probe1MiBAddress} → ${after.probe1MiBAddress}; heap ${after.heapBytes} bytes`,
    );
  }, 60_000);
});

describe('load-time syntax check', () => {
  const cases: [string, RegexSyntaxErrorKind, RegExp][] = [
    ['foo\\z', 'bad-escape', /\\Z/],
    ['\\pL+', 'bad-escape', /explicitly/],
    ['\\x{41}', 'bad-escape', /\\xHH/],
    ['\\Qa.b\\E', 'bad-escape', /escape each/],
    ['a(?i)b', 'global-flag-position', /start of the pattern/],
    ['\\b+', 'syntax', /^$/],
    ['a{,3}', 'empty-min-repeat', /\{0,3\}/],
    ['x(?:ab){,12}', 'empty-min-repeat', /\{0,12\}/],
    ['a{,}', 'empty-min-repeat', /\*/],
    ['foo(?=bar)', 'lookahead', /not supported by RE2.*linear time.*restructure.*condition/],
    ['foo(?!bar)', 'lookahead', /lookahead\/lookbehind/],
    ['(?<=foo)bar', 'lookbehind', /linear time/],
    ['(?<!foo)bar', 'lookbehind', /linear time/],
    ['(a)\\1', 'backreference', /backreferences are not supported/],
    ['(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10', 'backreference', /backreferences/],
    ['(?P<q>[\'"]).*(?P=q)', 'backreference', /backreferences are not supported/],
    ['(?>a+)b', 'atomic-group', /not needed in RE2/],
    ['a++b', 'possessive', /not needed in RE2/],
    ['a*+b', 'possessive', /not needed/],
    ['a{2,3}+b', 'possessive', /not needed/],
    ['(?x) a b # comment', 'verbose-flag', /remove the \(\?x\) flag and the whitespace\/comments/],
    ['(?ix:a b)', 'verbose-flag', /whitespace\/comments/],
    ['(?#note)abc', 'comment-group', /comments/],
    ['(a)?(?(1)b|c)', 'conditional', /conditional/],
    ['(?a)\\w+', 'inline-flag', /ASCII/],
    ['(?U)a+', 'inline-flag', /ungreedy/],
    ['(?u)\\w+', 'inline-flag', /ASCII-only/],
    ['\\N{BULLET}', 'named-char', /\\x\{HHHH\}/],
    ['[\\b]', 'class-backspace', /\\x08/],
    ['[[:alpha:]]+', 'posix-class', /POSIX class/],
    ['a\\Cb', 'any-byte', /split a UTF-8/],
    ['x{1001}', 're2', /at most 1000/],
    ['(unclosed', 're2', /^$/],
    ['(?P<a-b>x)', 're2', /group names/],
    ['(?P<größe>x)', 're2', /group names/],
  ];
  it.each(cases)('%s → %s with a hint', (pattern, kind, hint) => {
    const err = syntaxError(pattern);
    expect(err.kind).toBe(kind);
    expect(err.hint).toMatch(hint);
    expect(err.pattern).toBe(pattern);
    expect(err.message).toContain('invalid regex (');
    expect(err.message).toContain(JSON.stringify(pattern));
    if (kind !== 're2') {
      expect(err.offset).toBeGreaterThanOrEqual(0);
      if (err.hint) expect(err.message).toContain(`hint: ${err.hint}`);
    }
  });

  it('reports the position of the offending construct', () => {
    expect(syntaxError('abc(?=x)').offset).toBe(3);
    expect(syntaxError('ab{,2}').offset).toBe(2);
    expect(syntaxError('ab\\z').offset).toBe(2);
  });

  it('does not mistake look-alikes for Python-only constructs', () => {
    const ok = (p: string, text: string, expected: string | null) => {
      const re = compileRegex(p);
      try {
        expect(searchRegex(re, text)?.match ?? null).toBe(expected);
      } finally {
        re.dispose();
      }
    };
    ok('a{2,}', 'caaab', 'aaa');
    ok('a{0,3}b', 'xb', 'b');
    ok('a{2}', 'aaa', 'aa');
    ok('x{}', 'x{}', 'x{}'); // "{}" is a literal in both engines
    ok('a{1,2', 'a{1,2', 'a{1,2'); // unterminated: literal in both
    ok('[{,3}]+', 'x{,3}', '{,3}'); // inside a set
    ok('\\{,3}', 'a{,3}', '{,3}'); // escaped brace
    ok('a+?b', 'aaab', 'aaab'); // lazy, not possessive
    ok('(?:a+)+b', 'aab', 'aab'); // "+" after ")" is a quantifier, not possessive
  });

  it('rewrites \\uXXXX / \\UXXXXXXXX, \\Z and three-digit octal; (?<name>…) is an error as in Python 3.11', () => {
    expect(translatePythonRegex('(?P<n>x)\\u00e9\\U0001F600\\Z\\101').source).toBe('(?P<n>x)\\x{e9}\\x{1f600}\\zA');
    expect(() => translatePythonRegex('(?<n>x)')).toThrow(/write \(\?P<name>…\)/);
    const m = all('(?P<n>\\u00e9)\\U0001F600\\101', 'xé😀A');
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ index: 1, end: 5, named: { n: 'é' } });
  });

  it('notes the ASCII-only classes and the $ difference', () => {
    const re = compileRegex('\\w+$');
    expect(re.notes.map((n) => n.kind).sort()).toEqual(['ascii-classes', 'dollar-final-newline']);
    expect(testRegex(re, '12\n')).toBe(false); // Python's re.search('\\d+$', '12\\n') matches
    re.dispose();
  });

  it.each([
    ['a$|b$', [1, 4]],
    ['[$]\\$x$', [6]],
    ['(?i)x$', [5]],
    ['(?s-m:x)$', [8]],
    ['(?m)^end$', []],
    ['(?im:a)b$', []],
  ] as const)('%s: end-of-text $ at %j (and the note only then)', (pattern, offsets) => {
    const t = translatePythonRegex(pattern);
    expect(t.endOfTextDollars).toEqual(offsets);
    expect(t.notes.some((n) => n.kind === 'dollar-final-newline')).toBe(offsets.length > 0);
  });
});

describe('matching', () => {
  it('leaves class escapes unfolded under IGNORECASE, as Python does (only written members fold)', () => {
    // Python 3.11: re.findall(r'(?i)\W', 'kKsSiI aA!B') == [' ', '!']; re.findall(r'\W', 'kKsSiI a!', re.I) == [' ', '!'];
    // re.findall(r'(?i)[\Wa]+', 'kKsSiI aA!B') == [' aA!']; re.findall(r'(?i)[^\Wa]+', 'kKsSiI aA!B') == ['kKsSiI', 'B']
    const text = 'kKsSiI aA!B';
    expect(all('(?i)\\W', text).map((m) => m.match)).toEqual([' ', '!']);
    expect(all('\\W', 'kKsSiI a!', 'i').map((m) => m.match)).toEqual([' ', '!']);
    expect(all('(?i)[\\Wa]+', text).map((m) => m.match)).toEqual([' aA!']);
    expect(all('(?i)[^\\Wa]+', text).map((m) => m.match)).toEqual(['kKsSiI', 'B']);
  });

  it('reports UTF-16 offsets after astral characters', () => {
    const text = '🤡123 é€ 😀x 45';
    const m = all('\\d+', text);
    expect(m.map((x) => [x.index, x.end, x.match])).toEqual([
      [2, 5, '123'],
      [text.indexOf('45'), text.length, '45'],
    ]);
    for (const x of m) expect(text.slice(x.index, x.end)).toBe(x.match);
  });

  it('agrees with V8 on offsets for a mixed-width text', () => {
    const text = 'a😀bé€c𝄞\u0000d\nxyz😀😀ab€é €€a';
    for (const [p, js] of [
      ['[a-z]+', /[a-z]+/gu],
      ['.', /./gu],
      ['[^a-z]+', /[^a-z]+/gu],
      ['(?s).{2}', /.{2}/gsu],
    ] as const) {
      const ours = all(p, text).map((m) => [m.index, m.end]);
      const v8 = [...text.matchAll(js)].map((m) => [m.index, (m.index ?? 0) + m[0].length]);
      expect(ours, p).toEqual(v8);
    }
  });

  it('handles empty matches by stepping one code point', () => {
    expect(all('x*', '😀x').map((m) => [m.index, m.end])).toEqual([
      [0, 0],
      [2, 3],
      [3, 3],
    ]);
  });

  it('searches from fromIndex with the right one-character context', () => {
    expect(all('\\bfoo', 'xfoo foo', '', 1).map((m) => m.index)).toEqual([5]);
    expect(all('^a', 'aaa', '', 1)).toEqual([]);
    expect(all('^a', 'a\na', 'm', 1).map((m) => m.index)).toEqual([2]);
    expect(all('\\Ba', 'aaa', '', 1).map((m) => m.index)).toEqual([1, 2]);
    expect(all('b', '😀b', '', 1).map((m) => m.index)).toEqual([2]); // 1 is inside the pair: snapped back
    expect(all('a', 'aaa', '', 99)).toEqual([]);
  });

  it('returns only the named groups that took part', () => {
    const re = compileRegex('(?P<a>x)|(?P<b>y)(z)(?P<e>q*)');
    expect(re.groupNames).toEqual(['a', 'b', undefined, 'e']);
    const m = searchRegex(re, '--yz');
    expect(m).toMatchObject({ index: 2, end: 4, match: 'yz', named: { b: 'y', e: '' } });
    expect(m?.groups).toEqual([undefined, 'y', 'z', '']);
    expect(Object.keys(m?.named ?? {})).toEqual(['b', 'e']);
    expect(searchRegex(re, 'x')?.named).toEqual({ a: 'x' });
    re.dispose();
    const vram = compileRegex('vram=(?P<used>[0-9]+)');
    expect(searchRegex(vram, 'step 1 vram=2048 MiB')?.named).toEqual({ used: '2048' });
    vram.dispose();
  });

  it('maps i, m and s flags', () => {
    expect(all('hello', 'HeLLo', 'i').length).toBe(1);
    expect(all('^b$', 'a\nb\nc', 'm').map((m) => m.index)).toEqual([2]);
    expect(all('^b$', 'a\nb\nc').length).toBe(0);
    expect(all('a.b', 'a\nb').length).toBe(0);
    expect(all('a.b', 'a\nb', 's').length).toBe(1);
    expect(all('(?i)straSSe|x', 'STRASSE')[0]?.match).toBe('STRASSE');
  });

  it('rejects [\\Z] / keeps RE2 errors for other invalid escapes', () => {
    // \Z inside a set is invalid in Python too; RE2 rejects it with its own message.
    expect(syntaxError('[\\Z]').kind).toBe('re2');
  });
});

describe('subject size limit', () => {
  const chars: [number, string][] = [
    [1, 'a'],
    [2, 'é'],
    [3, '€'],
    [4, '😀'],
  ];
  it.each(chars)('width %i: refuses over MAX_SUBJECT_UTF8_BYTES, handles exactly the limit', (width, ch) => {
    const re = compileRegex('(?s)(.*)'); // worst case: the match and the capture are copied out too
    try {
      const fits = ch.repeat(Math.floor(MAX_SUBJECT_UTF8_BYTES / width));
      const over = fits + ch.repeat(Math.ceil(1 / width) + 1);
      expect(utf8ByteLength(fits)).toBeLessThanOrEqual(MAX_SUBJECT_UTF8_BYTES);
      expect(utf8ByteLength(over)).toBeGreaterThan(MAX_SUBJECT_UTF8_BYTES);
      const m = searchRegex(re, fits);
      expect(m?.end).toBe(fits.length);
      expect(m?.groups[0]?.length).toBe(fits.length);
      expect(() => matchAll(re, over)).toThrow(RegexSubjectTooLargeError);
      expect(() => searchRegex(re, over)).toThrow(/over the engine limit/);
      expect(() => testRegex(re, over)).toThrow(RegexSubjectTooLargeError);
      // the limit applies to what is passed: the tail from fromIndex plus one context character
      const from = over.length - fits.length + ch.length;
      expect(searchRegex(re, over, from)).toMatchObject({ index: from, end: over.length });
      expect(() => searchRegex(re, over, from - ch.length)).toThrow(RegexSubjectTooLargeError);
    } finally {
      re.dispose();
    }
  });
});

describe('line-local windows', () => {
  it('classifies which patterns can match "\\n" (conservatively)', () => {
    const local = (p: string, flags = '') => {
      const re = compileRegex(p, flags);
      const v = re.lineLocal;
      re.dispose();
      return v;
    };
    for (const p of [
      'oom_killer',
      'vram=(?P<used>[0-9]+)',
      '[^\\n]*',
      '[^\\s]+x',
      '\\S+',
      'a.b',
      '[a-z ]+',
      '\\bfoo\\b$',
      '^x',
      '[A-Z_]',
      '[^\\W\\d_]+',
      '\\x41',
      '[\\x20-\\x7e]+',
    ]) {
      expect(local(p), p).toBe(true);
    }
    for (const [p, f] of [
      ['a\\sb', ''],
      ['[^"]*', ''],
      ['a.b', 's'],
      ['(?s)a.b', ''],
      ['a\\nb', ''],
      ['[\\x00-\\x7f]', ''],
      ['[\\t-\\r]', ''],
      ['\\D', ''],
      ['\\W', ''],
      ['\\x0a', ''],
      ['\\012', ''],
      ['a\nb', ''],
    ] as const) {
      expect(local(p, f), p).toBe(false);
    }
  });

  const lines = Array.from({ length: 400 }, (_, i) => `line ${i} é😀 vram=${i * 7}MiB ${i % 3 === 0 ? '' : 'tail'}`);
  const text = `${lines.join('\n')}\n`;
  const cases: [string, string, RegExp][] = [
    ['\\d+', '', /\d+/gu],
    ['^\\w+', 'm', /^\w+/gmu],
    ['\\w+$', 'm', /\w+$/gmu],
    ['\\w+$', '', /\w+$/gu],
    ['x*$', 'm', /x*$/gmu],
    ['$', '', /$/gu],
    ['\\b[a-z]+\\b', '', /\b[a-z]+\b/gu],
    ['[^\\n]*', '', /[^\n]*/gu],
    ['vram=(?P<v>[0-9]+)MiB(?: tail)?$', 'm', /vram=(?<v>[0-9]+)MiB(?: tail)?$/gmu],
  ];
  it.each(cases)('%s (%s) gives the same matches with tiny windows as V8 on the whole text', (p, flags, js) => {
    const re = compileRegex(p, flags);
    try {
      expect(re.lineLocal).toBe(true);
      const expected = [...text.matchAll(js)].map((m) => [m.index, m[0]]);
      for (const windowBytes of [1, 7, 64, 1 << 20]) {
        const got = [...matchAll(re, text, 0, { windowBytes })].map((m) => [m.index, m.match]);
        expect(got, `window ${windowBytes}`).toEqual(expected);
      }
      const from = text.indexOf('line 200');
      const expectedFrom = expected.filter(([i]) => (i as number) >= from);
      expect([...matchAll(re, text, from, { windowBytes: 16 })].map((m) => [m.index, m.match])).toEqual(expectedFrom);
    } finally {
      re.dispose();
    }
  });

  it('scans a text larger than MAX_SUBJECT_UTF8_BYTES in windows; refuses only an over-long line', () => {
    const line = 'step 1234 loss=0.123 vram=2048MiB é€😀 ok\n';
    const big = line.repeat(Math.ceil((3 * MAX_SUBJECT_UTF8_BYTES) / utf8ByteLength(line)));
    const re = compileRegex('vram=(?P<v>[0-9]+)MiB');
    expect(re.fast).not.toBeNull(); // the RE2 path is what this test is about: forced below
    const RE2_ONLY = { engine: 're2' } as const;
    try {
      expect(utf8ByteLength(big)).toBeGreaterThan(3 * MAX_SUBJECT_UTF8_BYTES);
      const before = heapProbe();
      const t0 = performance.now();
      let n = 0;
      for (const m of matchAll(re, big, 0, RE2_ONLY)) {
        if (n === 0) expect(m).toMatchObject({ index: 21, named: { v: '2048' } });
        n++;
      }
      console.info(
        `[regex] windowed matchAll: ${n} matches in ${utf8ByteLength(big)} bytes, ${(performance.now() - t0).toFixed(0)} ms`,
      );
      expect(n).toBe(big.length / line.length);
      const after = heapProbe();
      expect(after.emvalHandles).toBe(before.emvalHandles); // match() results do not pin WASM-side values
      expect(after.probe1MiBAddress).toBeLessThanOrEqual(before.probe1MiBAddress + 64 * 1024);
      expect(testRegex(re, big + 'vram=1MiB', big.length, RE2_ONLY)).toBe(true);
      const longLine = 'x'.repeat(5000) + '\nvram=1MiB\n';
      expect(() => [...matchAll(re, longLine, 0, { maxSubjectBytes: 4096, windowBytes: 100, engine: 're2' })]).toThrow(
        RegexSubjectTooLargeError,
      );
      expect(searchRegex(re, longLine, 5001, { maxSubjectBytes: 4096, engine: 're2' })?.index).toBe(5001);
    } finally {
      re.dispose();
    }
  }, 30_000);
});
