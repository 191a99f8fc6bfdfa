import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatWarning, lintRecipe, regexGroups, type LintWarning } from '../src/lint/index.js';
import { loadRecipe } from '../src/recipe/index.js';
import { onePatternYaml } from './support/recipes.js';

/** A bare custom_patterns recipe with one pattern. */
const recipe = (regex: string, condition: string): string => onePatternYaml({ regex, condition });

function lint(text: string, file = 'r.yaml'): LintWarning[] {
  return lintRecipe(loadRecipe(text, file), text);
}

const lintOne = (regex: string, condition: string): LintWarning[] => lint(recipe(regex, condition));
const codes = (ws: readonly LintWarning[]): string[] => ws.map((w) => w.code);

/** Column of `needle` in line 5 of `recipe(...)` (the condition line), 1-based. */
function colOf(regex: string, condition: string, needle: string): number {
  const line = recipe(regex, condition).split('\n')[4]!;
  return line.indexOf(needle) + 1;
}

describe('lint: each warning fires on a minimal recipe and not on the corrected one', () => {
  const LOSS = 'loss=(?P<loss>\\S+)';

  it('never-fires/key-error: a group the regex does not define, with a near name', () => {
    const ws = lintOne(LOSS, "math.isnan(float(capture['los']))");
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({
      code: 'never-fires/key-error',
      severity: 'warning',
      suggestion: "capture['loss']",
      patternId: 'p',
      file: 'r.yaml',
      line: 5,
      col: colOf(LOSS, "math.isnan(float(capture['los']))", "capture['los']"),
    });
    expect(ws[0]!.endCol - ws[0]!.col).toBe("capture['los']".length);
    expect(ws[0]!.message).toBe(
      "capture['los'] raises KeyError whenever it is evaluated: the regex has no group 'los' (did you mean 'loss'?); the condition never fires",
    );
    expect(lintOne(LOSS, "math.isnan(float(capture['loss']))")).toEqual([]);
  });

  it('key-error without a near name lists the groups; a double-quoted key keeps its quotes', () => {
    expect(lintOne(LOSS, "capture['step'] == ''")[0]!.message).toContain(
      "the regex has no group 'step' (its named groups: 'loss')",
    );
    expect(lintOne(LOSS, 'capture["Loss"] == ""')[0]!.suggestion).toBe('capture["loss"]');
  });

  it('a key that varies with the trial is not judged', () => {
    expect(lintOne('(?P<k>\\w+)=(?P<v>\\w+)', "capture[capture['k']] == 'x'")).toEqual([]);
  });

  it('never-fires/type-error: ordering, arithmetic, unary minus, math.isnan(str), len(int)', () => {
    const G = 'grad=(?P<g>\\S+)';
    const cases: [string, string, string][] = [
      ["capture['g'] > 1", "int(capture['g']) > 1", "'>' not supported between instances of 'str' and 'int'"],
      [
        "capture['g'] >= 1.5",
        "float(capture['g']) >= 1.5",
        "'>=' not supported between instances of 'str' and 'float'",
      ],
      ["capture['g'] + 1 > 2", "int(capture['g']) + 1", 'can only concatenate str (not "int") to str'],
      ["capture['g'] / 2 > 1", "float(capture['g']) / 2", "unsupported operand type(s) for /: 'str' and 'int'"],
      ["-capture['g'] < 0", "-float(capture['g'])", "bad operand type for unary -: 'str'"],
      ["math.isnan(capture['g'])", "math.isnan(float(capture['g']))", 'must be real number, not str'],
    ];
    for (const [bad, fix, detail] of cases) {
      const ws = lintOne(G, bad);
      expect(codes(ws), bad).toEqual(['never-fires/type-error']);
      expect(ws[0]!.message, bad).toContain(detail);
      expect(ws[0]!.suggestion, bad).toBe(fix);
    }
    const len = lintOne(G, "capture['g'] == 'x' or len(exit_code) > 0");
    expect(codes(len)).toEqual(['never-fires/type-error']);
    expect(len[0]!.message).toBe(
      "len(exit_code) raises TypeError whenever it is evaluated: object of type 'int' has no len()",
    );
    // int() type-checks, but over \S+ it may meet '1.5': that is int-of-decimal's warning, not a type error
    expect(codes(lintOne(G, "int(capture['g']) > 1"))).toEqual(['int-of-decimal']);
    for (const good of [
      "float(capture['g']) + 1 > 2",
      "math.isnan(float(capture['g']))",
      "len(capture['g']) > 0",
      "capture['g'] + 'x' == 'ax'",
    ]) {
      expect(lintOne(G, good), good).toEqual([]);
    }
  });

  it('never-fires/str-int-eq and always-true/str-int-ne, with the conversion', () => {
    const C = 'exit code (?P<code>\\d+)';
    const eq = lintOne(C, "capture['code'] == 137");
    expect(eq).toMatchObject([{ code: 'never-fires/str-int-eq', suggestion: "int(capture['code']) == 137" }]);
    expect(eq[0]!.message).toBe(
      "capture['code'] == 137 is always False: a str never equals an int (capture values are str); convert it with int(); the condition never fires",
    );
    expect(lintOne(C, "capture['code'] != 0")).toMatchObject([
      { code: 'always-true/str-int-ne', suggestion: "int(capture['code']) != 0" },
    ]);
    expect(lintOne(C, "walltime_sec == capture['code']")).toMatchObject([
      { suggestion: "walltime_sec == float(capture['code'])" },
    ]);
    expect(lintOne(C, "int(capture['code']) == 137")).toEqual([]);
    expect(lintOne(C, "capture['code'] == '137'")).toEqual([]);
  });

  it('constant-condition: a condition that reads no trial variable', () => {
    const ws = lintOne(LOSS, '1 == 1');
    expect(ws).toMatchObject([{ code: 'constant-condition', col: colOf(LOSS, '1 == 1', '1 == 1') }]);
    expect(ws[0]!.message).toContain('it is always True, so it fires at every match of the regex');
    expect(lintOne(LOSS, "math.isnan(float('nan')) or capture['loss'] == 'x'")[0]!.message).toContain('always True');
    expect(lintOne(LOSS, '1/0')[0]!.message).toContain('it always raises ZeroDivisionError, so it never fires');
    // Only the constant is reported, not what its short-circuit never reaches.
    expect(codes(lintOne(LOSS, "False and capture['nope'] > 1"))).toEqual(['constant-condition']);
    expect(lintOne(LOSS, "math.isnan(float(capture['loss']))")).toEqual([]);
  });

  it('capture-without-groups: capture is always empty, with the group to name', () => {
    const ws = lintOne('loss=(\\S+)', "math.isnan(float(capture['loss']))");
    expect(codes(ws)).toEqual(['capture-without-groups']);
    expect(ws[0]!.message).toContain(
      'the regex has no named groups, so capture is always empty; name the group in the regex, e.g. loss=(?P<loss>\\S+)',
    );
    expect(lintOne('loss=nan', "capture['loss'] == 'nan'")[0]!.code).toBe('capture-without-groups');
    expect(lintOne('loss=(?P<loss>\\S+)', "math.isnan(float(capture['loss']))")).toEqual([]);
  });

  it('optional-group: a group a match may leave unset (warning only, never "never fires")', () => {
    const ws = lintOne('step (?P<step>\\d+)(?: loss=(?P<loss>\\S+))?', "math.isnan(float(capture['loss']))");
    expect(codes(ws)).toEqual(['optional-group']);
    expect(ws[0]!.message).toContain("raises KeyError when group 'loss' did not participate in the match");
    expect(ws[0]!.message).not.toContain('never fires');
    const own = lintOne('loss=(?P<loss>\\S+)?', "capture['loss'] == ''");
    expect(own[0]!.message).toContain('write (?P<loss>(?:\\S+)?) so it always participates');
    expect(codes(lintOne('(?P<a>x)|(?P<b>y)', "capture['a'] == 'x'"))).toEqual(['optional-group']);
    expect(lintOne('loss=(?P<loss>(?:\\S+)?)', "capture['loss'] == ''")).toEqual([]);
    expect(lintOne('step (?P<step>\\d+)', "int(capture['step']) > 0")).toEqual([]);
  });

  it('a trial-independent sub-expression that always raises, coded by its exception', () => {
    const ws = lintOne('step (?P<step>\\d+)', "int(capture['step']) > int('1e3')");
    expect(ws).toMatchObject([
      {
        code: 'never-fires/value-error',
        col: colOf('step (?P<step>\\d+)', "int(capture['step']) > int('1e3')", "int('1e3')"),
      },
    ]);
    expect(ws[0]!.message).toBe(
      "int('1e3') raises ValueError whenever it is evaluated (it does not depend on the trial); the condition never fires",
    );
    expect(lintOne('step (?P<step>\\d+)', "int(capture['step']) > int('1000')")).toEqual([]);
  });

  it('zero division by a constant divisor', () => {
    expect(codes(lintOne(LOSS, 'exit_code / 0 > 1'))).toEqual(['never-fires/zero-division-error']);
    expect(lintOne(LOSS, 'exit_code / 2 > 1')).toEqual([]);
  });
});

describe('lint: regex `$` without MULTILINE', () => {
  const text = (regex: string) =>
    `custom_patterns:\n  - id: p\n    match: {regex: ${JSON.stringify(regex)}}\n    on_match: info\n`;

  it('points at the `$` and suggests (?m:$)', () => {
    const [w, ...rest] = lint(text('all (?P<what>done)$'));
    expect(rest).toEqual([]);
    expect(w).toMatchObject({
      code: 'regex/dollar-end-of-text',
      suggestion: '(?m:$)',
      patternId: 'p',
      line: 3,
      col: 39,
      endLine: 3,
      endCol: 40,
    });
    expect(w!.excerpt.split('\n')[1]).toBe(`${' '.repeat(40)}^`);
  });

  it.each(['all done(?m:$)', '(?m)^end$', 'cost [$]\\d+', 'price \\$5'])('%s is not flagged', (regex) => {
    expect(lint(text(regex))).toEqual([]);
  });
});

describe('lint: short-circuits and wording', () => {
  const R = '(?P<a>\\w+)';

  it('a sub-expression behind `or` raises "whenever evaluated" but the condition can still fire', () => {
    const ws = lintOne(R, "exit_code == 0 or capture['b'] == 'x'");
    expect(codes(ws)).toEqual(['never-fires/key-error']);
    expect(ws[0]!.message).not.toContain('never fires');
  });

  it('behind `and`, any operand that never fires makes the whole condition never fire', () => {
    expect(lintOne(R, "exit_code == 0 and capture['a'] > 1")[0]!.message).toMatch(/; the condition never fires$/);
  });

  it('the unreached branch of a constant if-expression is not judged', () => {
    expect(codes(lintOne(R, "(capture['a'] == 'x') if True else capture['zz']"))).toEqual([]);
  });

  it('a comparison chain stops at its first false link', () => {
    const ws = lintOne(R, "0 < capture['a'] < 10");
    expect(ws).toMatchObject([{ code: 'never-fires/type-error', suggestion: "0 < int(capture['a'])" }]);
  });

  it('warnings never reject a recipe', () => {
    const text = recipe('loss=(\\S+)', "capture['x'] > 1");
    expect(loadRecipe(text, 'r.yaml').customPatterns).toHaveLength(1);
  });
});

describe('lint: positions in the YAML file', () => {
  it('a block scalar: the node on its own line and column', () => {
    const text = [
      'custom_patterns:',
      '  - id: p',
      '    match:',
      "      regex: 'loss=(?P<loss>\\S+) step=(?P<step>\\d+)'",
      '      condition: |',
      "        (int(capture['step']) > 10 and",
      "          capture['loss'] == 0)",
      '',
    ].join('\n');
    const [w] = lint(text);
    expect(w).toMatchObject({ code: 'never-fires/str-int-eq', line: 7, col: 11, endLine: 7, endCol: 31 });
    expect(w!.excerpt).toBe("            capture['loss'] == 0)\n            ^^^^^^^^^^^^^^^^^^^^");
  });

  it('a sub-expression over two lines: marked to its end, underlined to the end of its first line', () => {
    const text = [
      'custom_patterns:',
      '  - id: p',
      '    match:',
      "      regex: 'code=(?P<code>\\d+)'",
      '      condition: >-',
      "        (exit_code == 0 or capture['code']",
      '        == 137)',
      '',
    ].join('\n');
    const [w] = lint(text);
    expect(w).toMatchObject({ code: 'never-fires/str-int-eq', line: 6, col: 28, endLine: 7, endCol: 15 });
    expect(w!.excerpt).toBe(
      "          (exit_code == 0 or capture['code']\n                             ^^^^^^^^^^^^^^^",
    );
    expect(w!.suggestion).toBe("int(capture['code']) == 137");
  });

  it('a double-quoted scalar with escapes, and a single-quoted one with doubled quotes', () => {
    const dq =
      'custom_patterns:\n  - id: p\n    match:\n      regex: "(?P<g>\\\\d+)"\n      condition: "\\u0020capture[\\"g\\"] > 1"\n';
    const [w] = lint(dq);
    expect(w).toMatchObject({ code: 'never-fires/type-error', line: 5, col: 25 });
    expect(w!.endCol).toBe(dq.split('\n')[4]!.length); // up to the closing quote
    const sq =
      "custom_patterns:\n  - id: p\n    match:\n      regex: '(?P<step>\\d+)'\n      condition: 'capture[''stp''] == ''x'''\n";
    const [k] = lint(sq);
    // `capture[''stp'']` is 16 characters of source for 14 of value.
    expect(k).toMatchObject({
      code: 'never-fires/key-error',
      line: 5,
      col: 19,
      endCol: 35,
      suggestion: "capture['step']",
    });
  });

  it('a full probe recipe, and a JSON recipe', () => {
    const full = [
      'schema_version: 1',
      'mode: probe',
      'trials: 1',
      'mitigation_axis: [xnack]',
      'diagnostic_axis: [none]',
      'custom_patterns:',
      '  - id: p',
      '    match:',
      "      regex: 'x=(?P<x>\\d+)'",
      "      condition: capture['x'] > 1",
      '',
    ].join('\n');
    expect(lint(full)).toMatchObject([{ line: 10, col: 18 }]);
    const json = JSON.stringify({
      custom_patterns: [{ id: 'p', match: { regex: 'x=(?P<x>\\d+)', condition: "capture['x'] > 1" } }],
    });
    const [j] = lint(json, 'r.json');
    expect(j).toMatchObject({ line: 1, col: json.indexOf("capture['x'] > 1") + 1 });
  });

  it('without the recipe text, warnings sit at their pattern entry', () => {
    const text = recipe('x=(?P<x>\\d+)', "capture['x'] > 1");
    expect(lintRecipe(loadRecipe(text, 'r.yaml'))).toMatchObject([{ line: 2, col: 5, excerpt: '' }]);
  });
});

describe('regexGroups: named groups from RE2, optionality from the syntax', () => {
  const optional = (pattern: string): Record<string, string | null> =>
    Object.fromEntries((regexGroups(pattern)!.groups ?? []).map((g) => [g.name ?? `#${g.index}`, g.optional]));

  it('knows which groups every match sets', () => {
    expect(regexGroups('a(?P<x>b)(c)(?P<y>d)')!.names).toEqual(['x', 'y']);
    expect(optional('(?P<a>x)?(?P<b>x)*(?P<c>x)+(?P<d>x){0,2}(?P<e>x){1,2}(?P<f>x)??')).toEqual({
      a: 'quantifier',
      b: 'quantifier',
      c: null,
      d: 'quantifier',
      e: null,
      f: 'quantifier',
    });
    expect(optional('(?P<a>x)|y')).toEqual({ a: 'context' });
    expect(optional('(?P<a>x|y)')).toEqual({ a: null });
    expect(optional('(?:z(?P<a>x))*')).toEqual({ a: 'context' });
    expect(optional('(?P<a>(?P<b>x)?)')).toEqual({ a: null, b: 'quantifier' });
    expect(optional('(?P<a>(?P<b>x))?')).toEqual({ a: 'quantifier', b: 'context' });
    expect(optional('[(?P<no>)]\\((?P<a>x)\\)')).toEqual({ a: null });
    expect(optional('(?i)(?P<a>x)\\x41{2}\\w(?P<b>[^)|]+)')).toEqual({ a: null, b: null });
  });

  it('is null for a pattern RE2 rejects', () => {
    expect(regexGroups('(?P<a>x')).toBeNull();
  });
});

describe('lint fixtures', () => {
  it('lint-four-bugs.yaml has the four bugs of the issue; lint-four-bugs-fixed.yaml none', () => {
    const bad = 'fixtures/recipes/lint-four-bugs.yaml';
    const ws = lint(readFileSync(bad, 'utf8'), bad);
    expect(ws.map((w) => [w.code, w.line, w.suggestion])).toEqual([
      ['never-fires/str-int-eq', 6, "int(capture['code']) == 137"],
      ['never-fires/key-error', 10, "capture['loss']"],
      ['never-fires/type-error', 14, "int(capture['g']) > 1"],
      ['never-fires/type-error', 18, "math.isnan(float(capture['loss']))"],
    ]);
    const good = 'fixtures/recipes/lint-four-bugs-fixed.yaml';
    expect(lint(readFileSync(good, 'utf8'), good)).toEqual([]);
  });

  it('the bundled recipes lint clean (the demo prints check output without warnings)', () => {
    for (const f of [
      'fixtures/demo/recipe.yaml',
      'fixtures/recipes/example-probe-smoke.yaml',
      'fixtures/recipes/bare-custom-patterns.yaml',
      'fixtures/recipes/nan-loss.yaml',
    ]) {
      expect(lint(readFileSync(f, 'utf8'), f), f).toEqual([]);
    }
  });
});

describe('lint: regex `^` without MULTILINE (issue 35 §3)', () => {
  const text = (regex: string) =>
    `custom_patterns:\n  - id: p\n    match: {regex: ${JSON.stringify(regex)}}\n    on_match: info\n`;
  // `    match: {regex: "` is 20 characters: the regex's first character is at column 21.
  const MESSAGE =
    "'^' without MULTILINE matches only at the start of the whole log (Python's meaning too), not at the start of " +
    'each line; for the start of any line write (?m:^), or begin the pattern with (?m)';

  it('points at the `^` and suggests (?m:^)', () => {
    const [w, ...rest] = lint(text('^ERROR (?P<msg>.*)'));
    expect(rest).toEqual([]);
    expect(w).toEqual({
      code: 'regex/caret-start-of-text',
      severity: 'warning',
      message: MESSAGE,
      suggestion: '(?m:^)',
      patternId: 'p',
      file: 'r.yaml',
      line: 3,
      col: 21,
      endLine: 3,
      endCol: 22,
      excerpt: `      match: {regex: "^ERROR (?P<msg>.*)"}\n${' '.repeat(22)}^`,
    });
    expect(formatWarning(w!)).toBe(
      `r.yaml:3:21: warning: ${MESSAGE} [regex/caret-start-of-text]\n` +
        `      match: {regex: "^ERROR (?P<msg>.*)"}\n${' '.repeat(22)}^\n` +
        '  suggestion: (?m:^)',
    );
  });

  it.each([
    ['^a|^b', [21, 24]],
    ['a|^b', [23]],
    ['x(?:^y)', [25]],
    ['(?m:^x)|^y', [29]],
    ['é^x', [22]],
  ])('%s warns at each start-of-text `^`', (regex, cols) => {
    const ws = lint(text(regex));
    expect(ws.map((w) => [w.code, w.line, w.col, w.endCol])).toEqual(
      cols.map((c) => ['regex/caret-start-of-text', 3, c, c + 1]),
    );
  });

  it('a `^` and a `$` are listed in pattern order', () => {
    expect(lint(text('(?:^a)$')).map((w) => [w.code, w.col])).toEqual([
      ['regex/caret-start-of-text', 24],
      ['regex/dollar-end-of-text', 27],
    ]);
  });

  it.each(['\\^x', '[^a]+', '[a^]', '(?m:^x)', '(?m)^x', '(?m)^end$', 'x\\^2'])('%s is not flagged', (regex) => {
    expect(lint(text(regex))).toEqual([]);
  });
});

describe('int() of a group that can match a decimal point (issue 35 §2)', () => {
  it("warns where int('1253.0') would raise at a match, with float() as the fix", () => {
    const ws = lintOne('step_ms=(?P<step_ms>\\S+)', "int(capture['step_ms']) > 1000");
    expect(ws.map((w) => [w.code, w.message, w.suggestion])).toEqual([
      [
        'int-of-decimal',
        "int(capture['step_ms']) raises ValueError when group 'step_ms' matches a '.' (int('1253.0') does): use float(capture['step_ms']), or make the group match digits only (\\d+)",
        "float(capture['step_ms'])",
      ],
    ]);
  });

  it.each([
    ['step (?P<n>\\d+)', "int(capture['n']) > 3"], // digits only
    ['step (?P<n>[0-9,]+)', "int(capture['n']) > 3"], // no '.'
    ['step (?P<n>\\S+)', "float(capture['n']) > 3"], // float takes it
    ['step (?P<n>\\S+) (?P<m>\\d+)', "int(capture['m']) > 3"], // another group
  ])('%s with %s is not flagged', (regex, condition) => {
    expect(codes(lintOne(regex, condition))).not.toContain('int-of-decimal');
  });

  it("a literal '.' or a `.` in the group is flagged too", () => {
    expect(codes(lintOne('t=(?P<t>\\d+\\.\\d+)', "int(capture['t']) > 1"))).toContain('int-of-decimal');
    expect(codes(lintOne('t=(?P<t>.+)', "int(capture['t']) > 1"))).toContain('int-of-decimal');
  });
});
