import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RecipeSchemaError, SandboxError } from '../src/index.js';
import { loadRecipe, RecipeError, RecipeSandboxError, type LoadRecipeOptions } from '../src/recipe/index.js';
import { customPatternsYaml as patterns, PROBE } from './support/recipes.js';

function reject(
  text: string | Uint8Array,
  options?: LoadRecipeOptions,
  file = 'r.yaml',
): RecipeError | RecipeSandboxError {
  try {
    loadRecipe(text, file, options);
  } catch (e) {
    if (e instanceof RecipeError || e instanceof RecipeSandboxError) {
      expect(e).toBeInstanceOf(RecipeSchemaError);
      return e;
    }
    throw e;
  }
  throw new Error(`accepted: ${String(text)}`);
}

const OK = `id: ok\n    match: {regex: x}`;

describe('custom_patterns validation (the original tier5_custom.py (ROCm/aorta)), in order', () => {
  it('null custom_patterns yields no patterns', () => {
    expect(loadRecipe('custom_patterns: null\n', 'r.yaml').customPatterns).toEqual([]);
    expect(loadRecipe('custom_patterns:\n', 'r.yaml').customPatterns).toEqual([]);
  });

  it('not a list / empty list', () => {
    const e = reject('custom_patterns: {a: 1}\n');
    expect(e.reason).toBe("recipe.custom_patterns: must be a non-empty list, got {'a': 1}");
    expect([e.line, e.col]).toEqual([1, 18]);
    expect(reject('custom_patterns: []\n').reason).toBe('recipe.custom_patterns: must be a non-empty list, got []');
    expect(reject("custom_patterns: 'x'\n").reason).toBe("recipe.custom_patterns: must be a non-empty list, got 'x'");
  });

  it('entry not a mapping', () => {
    const e = reject(patterns(OK, '5'));
    expect(e.reason).toBe('recipe.custom_patterns[1]: must be a mapping, got int');
    expect([e.line, e.col]).toEqual([4, 5]);
    expect(reject(patterns('[a]')).reason).toBe('recipe.custom_patterns[0]: must be a mapping, got list');
    expect(reject(patterns('')).reason).toBe('recipe.custom_patterns[0]: must be a mapping, got NoneType');
  });

  it('unknown keys (before the id check)', () => {
    const e = reject(patterns('{bogus: 1, id: "", match: {regex: x}}'));
    expect(e.reason).toBe(
      "recipe.custom_patterns[0]: unknown keys ['bogus']; allowed: ['category', 'id', 'match', 'on_match', 'required_for_pass']",
    );
    expect([e.line, e.col, e.endCol]).toEqual([2, 6, 11]);
    expect(reject(patterns('{zz: 1, aa: 2, id: a}')).reason).toMatch(/unknown keys \['aa', 'zz'\]; allowed/);
  });

  it('id must be a non-empty string', () => {
    for (const body of [
      '{match: {regex: x}}',
      '{id: "", match: {regex: x}}',
      '{id: 5, match: {regex: x}}',
      '{id: null}',
    ]) {
      expect(reject(patterns(body)).reason).toBe('recipe.custom_patterns[0].id: must be a non-empty string');
    }
    const e = reject(patterns('{id: 5}'));
    expect([e.line, e.col]).toEqual([2, 10]);
  });

  it('duplicate id (before the match check)', () => {
    const e = reject(patterns('{id: a, match: {regex: x}}', '{id: a, match: 3}'));
    expect(e.reason).toBe(
      "recipe.custom_patterns[1].id: duplicate id 'a' (custom-pattern ids must be unique within a recipe)",
    );
    expect([e.line, e.col]).toEqual([3, 10]);
  });

  it('match must be a mapping', () => {
    expect(reject(patterns('{id: a}')).reason).toBe(
      "recipe.custom_patterns[0].match: must be a mapping with 'regex' (and optional 'condition'), got NoneType",
    );
    expect(reject(patterns('{id: a, match: x}')).reason).toBe(
      "recipe.custom_patterns[0].match: must be a mapping with 'regex' (and optional 'condition'), got str",
    );
  });

  it('match unknown keys (before the regex check)', () => {
    const e = reject(patterns('{id: a, match: {flags: i}}'));
    expect(e.reason).toBe("recipe.custom_patterns[0].match: unknown keys ['flags']; allowed: ['condition', 'regex']");
  });

  it('regex must be a non-empty string', () => {
    for (const m of ['{}', '{regex: ""}', '{regex: 1}', '{regex: null}', '{condition: "x"}']) {
      expect(reject(patterns(`{id: a, match: ${m}}`)).reason).toBe(
        'recipe.custom_patterns[0].match.regex: must be a non-empty string',
      );
    }
  });

  it('regex compilation goes through the hook (before the condition)', () => {
    const compileRegex = (src: string) => {
      if (src === '(') throw new Error('missing ), unterminated subpattern at position 0');
    };
    const e = reject(patterns(`{id: a, match: {regex: "(", condition: "x ** 2"}}`), { compileRegex });
    expect(e.reason).toBe(
      "recipe.custom_patterns[0].match.regex: invalid regex (missing ), unterminated subpattern at position 0): '('",
    );
  });

  it('without a hook, regexes are checked on RE2, with a hint for Python-only syntax', () => {
    expect(reject(patterns('{id: a, match: {regex: "("}}')).reason).toBe(
      "recipe.custom_patterns[0].match.regex: invalid regex (missing ): (): '('",
    );
    expect(reject(patterns("{id: a, match: {regex: 'a{,3}'}}")).reason).toBe(
      "recipe.custom_patterns[0].match.regex: invalid regex ({,3} means {0,3} in Python but is a literal string in RE2 at position 1): 'a{,3}'; hint: write {0,3} instead of {,3}",
    );
    expect(reject(patterns("{id: a, match: {regex: 'done\\z'}}")).reason).toBe(
      "recipe.custom_patterns[0].match.regex: invalid regex (bad escape \\z at position 4): 'done\\\\z'; hint: Python spells end of text \\Z (\\z is RE2 syntax, an error in Python)",
    );
    expect(
      loadRecipe(patterns("{id: a, match: {regex: 'loss=(?P<loss>[0-9.]+)'}}"), 'r.yaml').customPatterns[0]!.regex,
    ).toBe('loss=(?P<loss>[0-9.]+)');
  });

  it('condition rejection is re-raised with the path', () => {
    const e = reject(
      patterns(
        '{id: a, match: {regex: x}}',
        '{id: b, match: {regex: x}}',
        `{id: c, match: {regex: x, condition: "__import__('os').system('id')"}, on_match: bogus}`,
      ),
    );
    expect(e).toBeInstanceOf(SandboxError);
    expect(e.reason).toBe(
      "recipe.custom_patterns[2].match.condition: condition: forbidden call: __import__('os').system",
    );
    expect(reject(patterns('{id: a, match: {regex: x, condition: true}}')).reason).toBe(
      'recipe.custom_patterns[0].match.condition: condition: must be a string, got bool',
    );
    expect(reject(patterns('{id: a, match: {regex: x, condition: 137}}')).reason).toBe(
      'recipe.custom_patterns[0].match.condition: condition: must be a string, got int',
    );
    expect(
      loadRecipe(patterns('{id: a, match: {regex: x, condition: null}}'), 'r.yaml').customPatterns[0]!.condition,
    ).toBeNull();
  });

  it('on_match must be one of fail/info/warn', () => {
    expect(reject(patterns('{id: a, match: {regex: x}, on_match: bogus, required_for_pass: 3}')).reason).toBe(
      "recipe.custom_patterns[0].on_match: must be one of ['fail', 'info', 'warn'], got 'bogus'",
    );
    expect(reject(patterns('{id: a, match: {regex: x}, on_match: null}')).reason).toBe(
      "recipe.custom_patterns[0].on_match: must be one of ['fail', 'info', 'warn'], got None",
    );
    // YAML 1.1: `no` is a boolean.
    expect(reject(patterns('{id: a, match: {regex: x}, on_match: no}')).reason).toBe(
      "recipe.custom_patterns[0].on_match: must be one of ['fail', 'info', 'warn'], got False",
    );
    expect(loadRecipe(patterns(OK), 'r.yaml').customPatterns[0]!.onMatch).toBe('fail');
  });

  it('required_for_pass must be a boolean', () => {
    expect(reject(patterns('{id: a, match: {regex: x}, required_for_pass: "yes"}')).reason).toBe(
      'recipe.custom_patterns[0].required_for_pass: must be a boolean, got str',
    );
    expect(reject(patterns('{id: a, match: {regex: x}, required_for_pass: null}')).reason).toBe(
      'recipe.custom_patterns[0].required_for_pass: must be a boolean, got NoneType',
    );
    // PyYAML does not take `y` as a boolean.
    expect(reject(patterns('{id: a, match: {regex: x}, required_for_pass: y}')).reason).toBe(
      'recipe.custom_patterns[0].required_for_pass: must be a boolean, got str',
    );
    expect(
      loadRecipe(patterns('{id: a, match: {regex: x}, required_for_pass: yes}'), 'r.yaml').customPatterns[0]!
        .requiredForPass,
    ).toBe(true);
  });

  it('required_for_pass only with on_match fail or info (before category)', () => {
    const e = reject(patterns('{id: a, match: {regex: x}, on_match: warn, required_for_pass: true, category: nope}'));
    expect(e.reason).toBe(
      "recipe.custom_patterns[0].required_for_pass: only meaningful with on_match='fail' or 'info' (got on_match='warn'); a warn pattern cannot be required for pass",
    );
    const info = loadRecipe(patterns('{id: a, match: {regex: x}, on_match: info, required_for_pass: true}'), 'r.yaml');
    expect([info.customPatterns[0]!.onMatch, info.customPatterns[0]!.requiredForPass]).toEqual(['info', true]);
  });

  it('category must be an autopsy category when present', () => {
    const allowed =
      "['checkpoint_race', 'gpu_race', 'illegal_mem', 'launch_error', 'numeric_silent', 'oom_fragment', 'perf_regression', 'rccl_hang', 'thermal_throttle', 'tooling_gap', 'unknown']";
    for (const [v, r] of [
      ['bogus', "'bogus'"],
      ['null', 'None'],
      ['""', "''"],
      ['[oom_fragment]', "['oom_fragment']"],
      ['OOM_FRAGMENT', "'OOM_FRAGMENT'"],
    ]) {
      expect(reject(patterns(`{id: a, match: {regex: x}, category: ${v}}`)).reason).toBe(
        `recipe.custom_patterns[0].category: must be one of ${allowed}, got ${r}`,
      );
    }
    expect(
      loadRecipe(patterns('{id: a, match: {regex: x}, category: gpu_race}'), 'r.yaml').customPatterns[0]!.category,
    ).toBe('gpu_race');
  });

  it('the error message names the file position and shows the YAML line with a caret', () => {
    const e = reject(patterns('{id: a, match: {regex: x}, on_match: bogus}'));
    expect(e.message).toBe(
      [
        "r.yaml:2:42: recipe.custom_patterns[0].on_match: must be one of ['fail', 'info', 'warn'], got 'bogus'",
        '    - {id: a, match: {regex: x}, on_match: bogus}',
        '                                           ^^^^^',
      ].join('\n'),
    );
  });
});

describe('condition error positions inside the YAML file', () => {
  const head = 'custom_patterns:\n  - id: a\n    match:\n      regex: x\n';
  function at(condition: string): RecipeSandboxError {
    const e = reject(head + condition);
    expect(e).toBeInstanceOf(RecipeSandboxError);
    return e as RecipeSandboxError;
  }

  it('plain scalar', () => {
    const e = at('      condition: exit_code == 137 and open(p)\n');
    expect(e.reason).toBe('recipe.custom_patterns[0].match.condition: condition: forbidden call: open');
    expect([e.line, e.col, e.endCol, e.exprLine, e.exprCol, e.approximate]).toEqual([5, 39, 46, 1, 22, false]);
    expect(e.message).toBe(
      [
        'r.yaml:5:39: recipe.custom_patterns[0].match.condition: condition: forbidden call: open',
        '        condition: exit_code == 137 and open(p)',
        '                                        ^^^^^^^',
      ].join('\n'),
    );
  });

  it('multi-line plain scalar (folded)', () => {
    const e = at('      condition: exit_code == 137\n        and open(p)\n');
    expect([e.line, e.col, e.endCol]).toEqual([6, 13, 20]);
  });

  it("single-quoted scalar with '' escapes", () => {
    const e = at("      condition: 'x == ''a'' and open(p)'\n");
    expect([e.line, e.col, e.endCol]).toEqual([5, 34, 41]);
  });

  it('double-quoted scalar with escapes and stripped leading whitespace', () => {
    // Value: "\t (x == 1 and\n open(p))" → stripped, `open` is at line 2, col 2 of the expression.
    const e = at('      condition: "\\t (x == 1 and\\n open(p))"\n');
    expect([e.exprLine, e.exprCol]).toEqual([2, 2]);
    expect([e.line, e.col, e.endCol]).toEqual([5, 36, 43]);
  });

  it('double-quoted scalar with line folding', () => {
    const e = at('      condition: "exit_code == 137\n        and open(p)"\n');
    expect([e.line, e.col, e.endCol]).toEqual([6, 13, 20]);
  });

  it('literal block scalar', () => {
    const e = at('      condition: |\n        (exit_code == 137 and\n          open(p))\n');
    expect([e.exprLine, e.exprCol]).toEqual([2, 3]);
    expect([e.line, e.col, e.endCol]).toEqual([7, 11, 18]);
  });

  it('folded block scalar with keep chomping and a leading blank line', () => {
    const e = at('      condition: >+\n\n        exit_code == 137\n        and open(p)\n');
    expect([e.line, e.col, e.endCol]).toEqual([8, 13, 20]);
  });

  it('literal block scalar with an indentation indicator and a header comment', () => {
    const e = at('      condition: |4-  # open( in a comment\n          exit_code == 137 and open(p)\n');
    expect([e.line, e.col]).toEqual([6, 32]);
  });

  it('a node that starts at an escape points at the backslash; columns count code points', () => {
    const e = at('      condition: "\\x6fpen(p)"\n');
    expect([e.line, e.col, e.endCol]).toEqual([5, 19, 29]);
    const u = at('      condition: "\'\u{1F600}\' == x and open(p)"\n');
    expect([u.line, u.col]).toEqual([5, 32]);
  });

  it('CRLF line endings', () => {
    const e = at('      condition: |\r\n        (exit_code == 137 and\r\n          open(p))\r\n'.replace(/\n/g, '\n'));
    expect([e.line, e.col, e.endCol]).toEqual([7, 11, 18]);
  });

  it('anchored conditions point at the anchor definition', () => {
    const b = reject(
      'custom_patterns:\n  - id: a\n    match: {regex: &c exit_code == 1 and open(p)}\n  - id: b\n    match: {regex: x, condition: *c}\n',
    );
    expect([b.line, b.col]).toEqual([3, 42]);
  });

  it('syntax errors and non-string conditions', () => {
    const s = at('      condition: "exit_code =="\n');
    expect(s.kind).toBe('syntax');
    expect([s.line, s.col]).toEqual([5, 31]);
    const b = at('      condition: true\n');
    expect([b.line, b.col]).toEqual([5, 18]);
  });
});

describe('top level', () => {
  it('loads the example probe recipe', () => {
    const r = loadRecipe(
      readFileSync(new URL('../fixtures/recipes/example-probe-smoke.yaml', import.meta.url)),
      'example-probe-smoke.yaml',
    );
    expect(r.mode).toBe('probe');
    expect(r.trials).toBe(2);
    expect(r.ticket).toBe('PROBE-188-SMOKE');
    expect(r.mitigationAxis).toEqual(['none', 'pytorch_no_cuda_memory_caching']);
    expect(r.timeoutPerTrial).toBe(1800);
    expect(
      r.customPatterns.map((p) => [p.detectorId, p.regex, p.onMatch, p.category, p.condition?.source ?? null]),
    ).toEqual([
      ['custom:oom_killer', 'out of memory \\(oom_kill', 'fail', null, 'exit_code == 137'],
      ['custom:nccl_warn', 'NCCL WARN', 'warn', 'rccl_hang', null],
    ]);
    expect(r.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the sha256 of the recipe bytes, computed when first read, as an own enumerable key', () => {
    const file = new URL('../fixtures/recipes/example-probe-smoke.yaml', import.meta.url);
    const bytes = readFileSync(file);
    const expected = createHash('sha256').update(bytes).digest('hex');
    const full = loadRecipe(bytes, 'example-probe-smoke.yaml');
    expect(full.sourceSha256).toBe(expected);
    expect(loadRecipe(bytes.toString('utf8'), 'example-probe-smoke.yaml').sourceSha256).toBe(expected);
    expect(Object.keys(full)).toContain('sourceSha256');
    expect({ ...full }.sourceSha256).toBe(expected);
    const bareText = 'custom_patterns:\n  - {id: x, match: {regex: x}}\n';
    const bare = loadRecipe(bareText, 'bare.yaml');
    expect(bare.bare).toBe(true);
    expect(bare.sourceSha256).toBe(createHash('sha256').update(bareText).digest('hex'));
  });

  it('loads a bare custom_patterns file and the minimal probe recipe', () => {
    const r = loadRecipe(
      readFileSync(new URL('../fixtures/recipes/bare-custom-patterns.yaml', import.meta.url)),
      'bare.yaml',
    );
    expect(r.bare).toBe(true);
    expect(r.customPatterns[0]!.condition!.source).toBe('exit_code != 0');
    expect(loadRecipe(PROBE, 'p.yaml').customPatterns).toEqual([]);
  });

  it('non-mapping top level', () => {
    expect(reject('- 1\n').reason).toBe('recipe top-level must be a mapping, got list');
    expect(reject('42\n').reason).toBe('recipe top-level must be a mapping, got int');
    expect(reject('# nothing\n').reason).toBe('recipe top-level must be a mapping, got NoneType');
  });

  it('unknown top-level key, with the allowed list', () => {
    const e = reject(`${PROBE}garbage: 42\n`);
    expect(e.reason).toMatch(
      /^recipe: unknown top-level keys \['garbage'\]; allowed: \['cells', 'collect', 'collect_paths', /,
    );
    expect([e.line, e.col, e.endCol]).toEqual([6, 1, 8]);
  });

  it('phase-3, mode, mode-specific keys, schema_version', () => {
    expect(reject(`${PROBE}condition: ["exit_code != 0"]\n`).reason).toMatch(
      /^recipe: keys \['condition'\] are deferred to Phase 3/,
    );
    expect(reject('mode: bogus\n').reason).toBe("recipe.mode: must be 'triage' or 'probe', got 'bogus'");
    expect(reject(`${PROBE}workload: x\n`).reason).toMatch(/^recipe: keys \['workload'\] are triage-mode only/);
    expect(reject('schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\n').reason).toBe(
      "recipe (mode: probe): missing required key 'diagnostic_axis'",
    );
    // custom_patterns is not probe-only: a bare patterns file takes it too (issue 35 §3).
    expect(reject('ticket: T\ncustom_patterns: [{id: a, match: {regex: x}}]\n').reason).toBe(
      "recipe: keys ['custom_patterns'] are valid in a 'mode: probe' recipe or in a bare patterns file (only custom_patterns, tests and the hang keys); this file also has ['ticket']: set 'mode: probe' at the recipe top level, or remove that key to make it a bare patterns file",
    );
    expect(reject('ticket: T\ntier3_vram_growth: false\n').reason).toBe(
      "recipe: keys ['tier3_vram_growth'] are probe-mode only; set 'mode: probe' at the recipe top level or remove these keys",
    );
    expect(reject(PROBE.replace('schema_version: 1', 'schema_version: 1.0')).reason).toBe(
      'recipe.schema_version: must be an integer, got float (1.0)',
    );
    expect(reject(PROBE.replace('schema_version: 1', 'schema_version: true')).reason).toBe(
      'recipe.schema_version: must be an integer, got bool (True)',
    );
    expect(reject(PROBE.replace('schema_version: 1', 'schema_version: 2')).reason).toBe(
      'recipe.schema_version: unsupported version 2; this build understands version 1',
    );
  });

  it('consumed probe keys are type-checked', () => {
    expect(reject(PROBE.replace('trials: 1', 'trials: 0')).reason).toBe('recipe.trials: must be a positive int, got 0');
    expect(reject(PROBE.replace('trials: 1', 'trials: true')).reason).toBe(
      'recipe.trials: must be a positive int, got True',
    );
    expect(reject(PROBE.replace('[none]\ndiag', '[none, 3]\ndiag')).reason).toBe(
      "recipe.mitigation_axis: must be a list[str], got list (['none', 3])",
    );
    expect(reject(PROBE.replace('diagnostic_axis: [none]', 'diagnostic_axis: []')).reason).toBe(
      'recipe.diagnostic_axis: must be a non-empty list',
    );
    expect(reject(`${PROBE}env_passthrough_mode: bogus\n`).reason).toBe(
      "recipe.env_passthrough_mode: must be 'inherit' or 'file', got 'bogus'",
    );
    expect(reject(`${PROBE}timeout_per_trial: 0\n`).reason).toBe(
      'recipe.timeout_per_trial: must be > 0 when set, got 0',
    );
    expect(reject(`${PROBE}hang_window_sec: 0\n`).reason).toBe('recipe.hang_window_sec: must be > 0 when set, got 0');
    expect(reject(`${PROBE}hang_grace_period_at_start: -1\n`).reason).toBe(
      'recipe.hang_grace_period_at_start: must be >= 0 when set, got -1',
    );
    expect(loadRecipe(`${PROBE}hang_grace_period_at_start: 0\n`, 'p.yaml').hangGracePeriodAtStart).toBe(0);
    expect(reject(`${PROBE}confound: {baseline_cel: x}\n`).reason).toBe(
      "recipe.confound: unknown key 'baseline_cel'; did you mean 'baseline_cell'?",
    );
  });
});

describe('hostile YAML', () => {
  it('alias bomb', () => {
    const lol = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      lol.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${prev}`).join(', ')}]`,
      );
    }
    const e = reject(`${lol.join('\n')}\n`);
    expect(e.reason).toMatch(
      /^recipe r\.yaml: parse error \(document expands to more than 100000 values through aliases/,
    );
    expect(e.line).toBe(5);
  });

  it('recursive alias', () => {
    expect(reject('a: &a [*a]\n').reason).toMatch(/recursive alias/);
  });

  it('duplicate key', () => {
    const e = reject(patterns('{id: a, id: b, match: {regex: x}}'));
    expect(e.reason).toBe("recipe r.yaml: parse error (duplicate key 'id' (first defined at line 2, col 6))");
    expect([e.line, e.col]).toEqual([2, 13]);
  });

  it('tab in indentation', () => {
    const e = reject('custom_patterns:\n\t- id: a\n');
    expect(e.reason).toMatch(/^recipe r\.yaml: parse error \(.*[Tt]ab/);
    expect(e.line).toBe(2);
  });

  it('invalid UTF-8 bytes', () => {
    const bytes = Buffer.concat([Buffer.from('custom_patterns:\n  - id: é'), Buffer.from([0xff]), Buffer.from('\n')]);
    const e = reject(bytes);
    expect(e.reason).toBe(
      "recipe r.yaml: cannot read file ('utf-8' codec can't decode byte 0xff in position 27: invalid start byte)",
    );
    expect([e.line, e.col]).toEqual([2, 10]);
    expect(reject(Buffer.from([0x61, 0x3a, 0x20, 0xe2, 0x82])).reason).toMatch(/unexpected end of data/);
  });

  it('unknown tags are rejected as safe_load does', () => {
    const e = reject('custom_patterns: !!python/object/apply:os.system [id]\n');
    expect(e.reason).toBe(
      "recipe r.yaml: parse error (could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system')",
    );
    expect([e.line, e.col]).toEqual([1, 18]);
  });

  it('control characters are rejected as PyYAML does', () => {
    const e = reject('custom_patterns:\n  - id: a\x01\n');
    expect(e.reason).toBe(
      'recipe r.yaml: parse error (unacceptable character #x0001: special characters are not allowed)',
    );
    expect([e.line, e.col]).toEqual([2, 10]);
  });

  it('merge keys, JSON recipes, and a date condition', () => {
    const m = loadRecipe('custom_patterns:\n  - &e {id: a, match: {regex: x}}\n  - {<<: *e, id: b}\n', 'r.yaml');
    expect(m.customPatterns.map((p) => [p.id, p.regex])).toEqual([
      ['a', 'x'],
      ['b', 'x'],
    ]);
    const j = loadRecipe('{"custom_patterns": [{"id": "a", "match": {"regex": "x\\\\d"}}]}', 'r.json');
    expect(j.customPatterns[0]!.regex).toBe('x\\d');
    expect(reject(patterns('{id: a, match: {regex: x, condition: 2024-01-02}}')).reason).toBe(
      'recipe.custom_patterns[0].match.condition: condition: must be a string, got date',
    );
  });

  it('mutated recipes fail only with positioned RecipeSchemaErrors', () => {
    const base = readFileSync(new URL('../fixtures/recipes/example-probe-smoke.yaml', import.meta.url), 'utf8');
    const inserts = ['', ':', '\t', '&a ', '*a', '"', "'", '|', '- ', '{', ']', '\n  ', '#', '\\', '!!binary '];
    let seed = 7;
    for (let i = 0; i < 400; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const at = seed % base.length;
      const ins = inserts[seed % inserts.length]!;
      const text = base.slice(0, at) + ins + base.slice(at + (seed % 3 === 0 ? 1 : 0));
      try {
        loadRecipe(text, 'm.yaml');
      } catch (e) {
        expect(e).toBeInstanceOf(RecipeSchemaError);
        const r = e as RecipeError;
        expect(r.line).toBeGreaterThanOrEqual(1);
        expect(r.col).toBeGreaterThanOrEqual(1);
      }
    }
  }, 30_000); // 400 loads: about 3 s alone, past the 5 s default on a loaded machine

  it('a whitespace-only condition points at the scalar', () => {
    const e = reject(patterns('{id: a, match: {regex: x, condition: "   "}}'));
    expect(e.reason).toBe('recipe.custom_patterns[0].match.condition: condition: expression must be non-empty');
    expect([e.line, e.col, e.endCol]).toEqual([2, 42, 47]);
  });

  it('syntax errors and several documents are clean parse errors', () => {
    expect(reject('{a: 1').reason).toMatch(/^recipe r\.yaml: parse error \(/);
    expect(reject('a: 1\n---\nb: 2\n').reason).toMatch(/^recipe r\.yaml: parse error \(/);
    expect(reject(`${'['.repeat(5000)}${']'.repeat(5000)}`).reason).toMatch(/^recipe r\.yaml: parse error \(/);
  });
});

describe('YAML indentation errors point at the misindented token, as PyYAML does', () => {
  it.each([
    // PyYAML: "expected <block end>, but found '<block mapping start>' ... line 5, column 4" (and column 7).
    ['custom_patterns:\n  - id: a\n    match:\n      regex: x\n   on_match: fail\n', 5, 4, 12],
    ['custom_patterns:\n  - id: a\n    match:\n        regex: x\n      condition: "1"\n', 5, 7, 16],
  ])('%j → line %i, col %i', (text, line, col, endCol) => {
    let err: unknown;
    try {
      loadRecipe(text, 'r.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RecipeSchemaError);
    expect([
      (err as RecipeSchemaError).line,
      (err as RecipeSchemaError).col,
      (err as RecipeSchemaError).endCol,
    ]).toEqual([line, col, endCol]);
  });
});

describe('the hang keys in any recipe (issue 35 §3)', () => {
  const HANG = "hang_window_sec: 5\nhang_grace_period_at_start: 0\nprogress_regex: '\\d+/\\d+'\nhang_action: kill\n";
  const tier2 = (r: ReturnType<typeof loadRecipe>) => [
    r.hangWindowSec,
    r.hangGracePeriodAtStart,
    r.progressRegex,
    r.hangAction,
  ];

  it('a bare custom_patterns: file with the hang keys stays a bare file', () => {
    const r = loadRecipe(`custom_patterns:\n  - ${OK}\n${HANG}`, 'r.yaml');
    expect(r.bare).toBe(true);
    expect(tier2(r)).toEqual([5, 0, '\\d+/\\d+', 'kill']);
    expect(r.customPatterns.map((p) => p.id)).toEqual(['ok']);
  });

  it('a triage recipe (no mode, or mode: triage) takes them too; a file of hang keys alone is one', () => {
    expect(tier2(loadRecipe(HANG, 'r.yaml'))).toEqual([5, 0, '\\d+/\\d+', 'kill']);
    const t = loadRecipe(`schema_version: 1\nmode: triage\nworkload: w\n${HANG}`, 'r.yaml');
    expect([t.mode, ...tier2(t)]).toEqual(['triage', 5, 0, '\\d+/\\d+', 'kill']);
    // Defaults when absent, as before.
    expect(tier2(loadRecipe('mode: triage\n', 'r.yaml'))).toEqual([30, 60, null, 'record']);
  });

  it('a probe recipe still takes them', () => {
    expect(tier2(loadRecipe(`${PROBE}${HANG}`, 'r.yaml'))).toEqual([5, 0, '\\d+/\\d+', 'kill']);
  });

  it('their values are checked wherever they are, with the same messages and positions', () => {
    const bare = (extra: string) => reject(`custom_patterns:\n  - ${OK}\n${extra}`);
    for (const [extra, reason] of [
      ['hang_window_sec: 0\n', 'recipe.hang_window_sec: must be > 0 when set, got 0'],
      ['hang_grace_period_at_start: -1\n', 'recipe.hang_grace_period_at_start: must be >= 0 when set, got -1'],
      ["hang_window_sec: 'soon'\n", 'recipe.hang_window_sec: must be a number, got str'],
      ['hang_action: stop\n', "recipe.hang_action: must be one of ['kill', 'record'], got 'stop'"],
      ["progress_regex: ''\n", "recipe.progress_regex: must be a non-empty string, got ''"],
    ] as const) {
      const b = bare(extra);
      expect(b.reason).toBe(reason);
      expect(b.line).toBe(4);
      const t = reject(`mode: triage\n${extra}`);
      expect(t.reason).toBe(reason);
      expect(t.line).toBe(2);
      expect(reject(`${PROBE}${extra}`).reason).toBe(reason);
    }
    expect(reject("progress_regex: '('\n").reason).toMatch(/^recipe\.progress_regex: invalid regex \(/);
  });
});

describe('the size bound (docs/deviations-yaml.md)', () => {
  it('rejects a recipe over 2 MiB before parsing it, at 1:1, as text or bytes; 2 MiB itself is read', () => {
    // 230,000 anchors in a top-level list (2.9 MB): parsing it took 4.9 s before the bound.
    const anchors = Array.from({ length: 230_000 }, (_, i) => `- &a${i} x\n`).join('');
    for (const input of [anchors, new TextEncoder().encode(anchors)]) {
      let err: unknown;
      try {
        loadRecipe(input, 'big.yaml');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RecipeError);
      expect((err as RecipeError).message).toBe(
        'big.yaml:1:1: recipe big.yaml: too large (2878890 bytes; a recipe may have at most 2097152 bytes, 2 MiB)',
      );
      expect([(err as RecipeError).line, (err as RecipeError).col]).toEqual([1, 1]);
    }
    // Exactly 2 MiB (a comment pads it) is parsed: the error is the schema's, not the bound's.
    const head = 'custom_patterns: 5\n#';
    const exact = head + 'x'.repeat(2 * 1024 * 1024 - head.length);
    expect(() => loadRecipe(exact, 'exact.yaml')).toThrow(
      'exact.yaml:1:18: recipe.custom_patterns: must be a non-empty list, got 5',
    );
    // Counted in UTF-8 bytes: 1 Mi two-byte characters and a byte are over.
    expect(() => loadRecipe(`#${'é'.repeat(1024 * 1024)}`, 'wide.yaml')).toThrow(/too large \(2097153 bytes/);
  });
});
