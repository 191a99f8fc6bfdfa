import { describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

const cli = cliInProcess;

const check = (...args: string[]) => cli(['check', ...args]);

const GOOD = 'fixtures/recipes/example-probe-smoke.yaml';
const BAD = 'fixtures/recipes/invalid-condition.yaml';

describe('aorta-probe check', () => {
  it('reports a valid recipe with its pattern count, exit 0', async () => {
    expect(await check(GOOD)).toEqual({ code: 0, out: `${GOOD}: valid (2 custom patterns)\n`, err: '' });
    expect(JSON.parse((await check(GOOD, '--json')).out)).toEqual({
      valid: true,
      files: [{ file: GOOD, valid: true, custom_patterns: 2, warnings: [], self_tests: [], error: null, errors: [] }],
    });
    expect((await check(GOOD, '--strict')).code).toBe(0);
  });

  it("points a condition's forbidden node at its line and column in the YAML file, exit 1", async () => {
    const r = await check(BAD);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      `${BAD}:5:68: recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow\n` +
        `        condition: "math.isnan(float(capture['loss'])) and exit_code ** 2"\n` +
        `                                                                     ^^\n` +
        '  hint: `**` is not allowed: write the power as a constant, e.g. `1e6` for `10 ** 6`\n',
    );
    const json = JSON.parse((await check(BAD, '--json')).out) as {
      valid: boolean;
      files: { error: Record<string, unknown> }[];
    };
    expect(json.valid).toBe(false);
    expect(json.files[0]!.error).toMatchObject({
      type: 'SandboxError',
      node: 'Pow',
      file: BAD,
      line: 5,
      col: 68,
      detail: 'recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow',
    });
  });

  const THREE = 'fixtures/recipes/three-mistakes.yaml';

  it('reports every independent error of a file in one run, in the order of the checks (issue 35 §3), exit 1', async () => {
    const r = await check(THREE);
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    // The unknown-key check runs before the values are read: the misspelt key (line 14) comes first.
    expect(r.out).toBe(
      `${THREE}:14:1: recipe: unknown key 'tier3_vram_growt'; did you mean 'tier3_vram_growth'?\n` +
        '  tier3_vram_growt: true\n' +
        '  ^^^^^^^^^^^^^^^^\n' +
        `${THREE}:4:9: recipe.trials: must be a positive int, got 0\n` +
        '  trials: 0\n' +
        '          ^\n' +
        `${THREE}:10:14: recipe.custom_patterns[0].match.regex: invalid regex (missing ): out of (memory): 'out of (memory'\n` +
        '        regex: "out of (memory"\n' +
        '               ^^^^^^^^^^^^^^^^\n',
    );
    const json = JSON.parse((await check(THREE, '--json')).out) as {
      valid: boolean;
      files: { error: Record<string, unknown>; errors: Record<string, unknown>[] }[];
    };
    expect(json.valid).toBe(false);
    const f = json.files[0]!;
    expect(f.errors.map((e) => [e.line, e.col])).toEqual([
      [14, 1],
      [4, 9],
      [10, 14],
    ]);
    expect(f.error).toEqual(f.errors[0]);
    const sarif = JSON.parse((await check(THREE, '--format', 'sarif')).out) as {
      runs: { results: { level: string; fixes?: unknown[] }[] }[];
    };
    expect(sarif.runs[0]!.results.map((x) => x.level)).toEqual(['error', 'error', 'error']);
    expect(sarif.runs[0]!.results[0]!.fixes).toHaveLength(1); // the misspelt key's correction
    const github = await check(THREE, '--format', 'github');
    expect(github.out.split('\n').filter((l) => l.startsWith('::error '))).toHaveLength(3);
    expect(github.code).toBe(1);
  });

  it('a condition rejected beside other errors keeps its hint line; a dependent error is not reported', async () => {
    const text = `schema_version: 1
mode: probe
trials: 1
mitigation_axis: [none]
diagnostic_axis: [none]
custom_patterns:
  - id: slow
    match: {regex: 'step (?P<ms>\\d+)', condition: "int(capture['ms']) ** 2 > 9"}
disable_detectors: ['custom:slow']
hang_action: explode
`;
    const r = await cli(['check', '-'], text);
    expect(r.code).toBe(1);
    const heads = r.out.split('\n').filter((l) => l.startsWith('<stdin>:'));
    // custom:slow names the pattern that failed to load: not a second error.
    expect(heads.map((l) => l.split(': ')[1])).toEqual([
      'recipe.custom_patterns[0].match.condition',
      'recipe.hang_action',
    ]);
    expect(r.out).toContain('  hint: `**` is not allowed');
  });

  const FOUR = 'fixtures/recipes/lint-four-bugs.yaml';

  it('prints the four silent bugs of issue 8 as warnings at their lines, with fixes; still valid, exit 0', async () => {
    const r = await check(FOUR);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toBe(
      `${FOUR}:6:19: warning: capture['code'] == 137 is always False: a str never equals an int (capture values are str); convert it with int(); the condition never fires [never-fires/str-int-eq]\n` +
        `        condition: "capture['code'] == 137"\n` +
        `                    ^^^^^^^^^^^^^^^^^^^^^^\n` +
        `  suggestion: int(capture['code']) == 137\n` +
        `${FOUR}:10:36: warning: capture['los'] raises KeyError whenever it is evaluated: the regex has no group 'los' (did you mean 'loss'?); the condition never fires [never-fires/key-error]\n` +
        `        condition: "math.isnan(float(capture['los']))"\n` +
        `                                     ^^^^^^^^^^^^^^\n` +
        `  suggestion: capture['loss']\n` +
        `${FOUR}:14:19: warning: capture['g'] > 1 raises TypeError whenever it is evaluated: '>' not supported between instances of 'str' and 'int'; the condition never fires [never-fires/type-error]\n` +
        `        condition: "capture['g'] > 1"\n` +
        `                    ^^^^^^^^^^^^^^^^\n` +
        `  suggestion: int(capture['g']) > 1\n` +
        `${FOUR}:18:19: warning: math.isnan(capture['loss']) raises TypeError whenever it is evaluated: must be real number, not str; the condition never fires [never-fires/type-error]\n` +
        `        condition: "math.isnan(capture['loss'])"\n` +
        `                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n` +
        `  suggestion: math.isnan(float(capture['loss']))\n` +
        `${FOUR}: valid (4 custom patterns, 4 warnings)\n`,
    );
  });

  it('--json lists the warnings with codes and positions; --strict exits 1 on warnings', async () => {
    const r = await check(FOUR, '--json');
    expect(r.code).toBe(0);
    const json = (
      JSON.parse(r.out) as { files: { valid: boolean; custom_patterns: number; warnings: Record<string, unknown>[] }[] }
    ).files[0]!;
    expect(json).toMatchObject({ valid: true, file: FOUR, custom_patterns: 4 });
    expect(json.warnings.map((w) => [w.code, w.patternId, w.line, w.col, w.endLine, w.endCol])).toEqual([
      ['never-fires/str-int-eq', 'oom_kill', 6, 19, 6, 41],
      ['never-fires/key-error', 'nan_loss', 10, 36, 10, 50],
      ['never-fires/type-error', 'grad_spike', 14, 19, 14, 35],
      ['never-fires/type-error', 'nan_loss_raw', 18, 19, 18, 46],
    ]);
    expect(json.warnings[1]).toEqual({
      code: 'never-fires/key-error',
      severity: 'warning',
      message:
        "capture['los'] raises KeyError whenever it is evaluated: the regex has no group 'los' (did you mean 'loss'?); the condition never fires",
      suggestion: "capture['loss']",
      patternId: 'nan_loss',
      file: FOUR,
      line: 10,
      col: 36,
      endLine: 10,
      endCol: 50,
      excerpt: `        condition: "math.isnan(float(capture['los']))"\n                                     ^^^^^^^^^^^^^^`,
    });
    const strict = await check('--strict', FOUR);
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/: valid \(4 custom patterns, 4 warnings\)\n$/);
    expect((await check(FOUR, '--json', '--strict')).code).toBe(1);
    // The corrected recipe is clean, strict or not.
    expect(await check('fixtures/recipes/lint-four-bugs-fixed.yaml', '--strict')).toEqual({
      code: 0,
      out: 'fixtures/recipes/lint-four-bugs-fixed.yaml: valid (4 custom patterns)\n',
      err: '',
    });
    // An invalid recipe stays exit 1 with --strict, and is not linted.
    expect((await check(BAD, '--strict')).code).toBe(1);
  });

  it('usage errors and unreadable files exit 2', async () => {
    const missing = await check();
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^aorta-probe: check: missing RECIPE\n/);
    expect((await check(GOOD, '--bogus')).code).toBe(2);
    const unreadable = await check('fixtures/recipes/does-not-exist.yaml');
    expect(unreadable.code).toBe(2);
    expect(unreadable.err).toMatch(/^aorta-probe check: cannot read fixtures\/recipes\/does-not-exist\.yaml: ENOENT/);
  });

  it('--help tells the truth about the command', async () => {
    const r = await check('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: aorta-probe check RECIPE\.\.\. \[--format text\|json\|sarif\|github\] \[--strict\]/);
    expect(r.out).toContain('--strict         Exit 1 when there are warnings');
  });
});

describe('aorta-probe scan', () => {
  it('fires the custom pattern at the NaN loss after ordinary loss lines; exit 1 for fail', async () => {
    const r = await cli(['scan', '--recipe', 'fixtures/recipes/nan-loss.yaml', 'fixtures/logs/loss-then-nan.txt']);
    expect(r).toEqual({
      code: 1,
      out:
        'fixtures/logs/loss-then-nan.txt:3: tier4:nan_signature — loss=nan\n' +
        "fixtures/logs/loss-then-nan.txt:3: custom:nan_loss — loss=nan  {'loss': 'nan'}\n" +
        "verdict: fail\nfailure detectors: tier4:nan_signature, custom:nan_loss\nwarn detectors: (none)\ncapture: {'loss': 'nan'}\n",
      err: '',
    });
    const json = JSON.parse(
      (await cli(['scan', '--json', '--recipe', 'fixtures/recipes/nan-loss.yaml', 'fixtures/logs/loss-then-nan.txt']))
        .out,
    );
    expect(json).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: ['tier4:nan_signature', 'custom:nan_loss'],
      capture: { loss: 'nan' },
    });
  });

  it('reads stdin for -, and a clean log passes with exit 0', async () => {
    expect(await cli(['scan', '-'], 'step 1 loss=0.5\nall good\n')).toEqual({
      code: 0,
      out: 'verdict: pass\nfailure detectors: (none)\nwarn detectors: (none)\ncapture: {}\n',
      err: '',
    });
  });

  it('usage errors, unreadable files and a recipe that does not load exit 2 (issue 16), the recipe with its position', async () => {
    expect((await cli(['scan'])).code).toBe(2);
    expect((await cli(['scan', 'a.log', '--exit-code', 'x'])).code).toBe(2);
    const missing = await cli(['scan', 'fixtures/logs/nope.txt']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read fixtures\/logs\/nope\.txt: ENOENT/);
    const bad = await cli(['scan', '--recipe', 'fixtures/recipes/invalid-condition.yaml', 'fixtures/logs/clean.txt']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^fixtures\/recipes\/invalid-condition\.yaml:5:68: /);
  });
});

describe('aorta-probe patterns', () => {
  it('lists the 7 built-in patterns, as text and JSON, and the catalogue version', async () => {
    const text = await cli(['patterns']);
    expect(text.code).toBe(0);
    expect(text.out.match(/^tier4:/gm)).toHaveLength(7);
    const json = JSON.parse((await cli(['patterns', '--json'])).out) as { version: string; patterns: { id: string }[] };
    expect(json.version).toBe('1');
    expect(json.patterns.map((p) => p.id)).toEqual([
      'tier4:python_traceback',
      'tier4:hip_error',
      'tier4:cuda_error',
      'tier4:rocm_error',
      'tier4:nccl_rccl_error',
      'tier4:collective_timeout',
      'tier4:nan_signature',
    ]);
    expect((await cli(['patterns', '--version'])).out).toBe('1\n');
    expect((await cli(['patterns', '--bogus'])).code).toBe(2);
  });
});
