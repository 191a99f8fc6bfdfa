/**
 * Every independent error of a recipe in one run (issue 35 §3): `recipeErrors` / `loadRecipeCollecting` run the
 * loader's own checks but go on after an error, and their first error is the one `loadRecipe` throws.
 *
 * The property is checked over the recipe test corpus: this file wraps `loadRecipe` and imports the recipe test
 * files, so every recipe text those tests reject is replayed through `recipeErrors` (the last test), and over the
 * recipes under fixtures/recipes/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RecipeSchemaError } from '../src/index.js';
import { loadRecipe, loadRecipeCollecting, recipeErrors, RecipeError } from '../src/recipe/index.js';
import type { LoadRecipeOptions } from '../src/recipe/types.js';
import { toDiagnostic } from '../playground/src/diagnostic.js';
import { PROBE } from './support/recipes.js';

interface Rejection {
  readonly input: string | Uint8Array;
  readonly file: string;
  readonly options: LoadRecipeOptions | undefined;
  readonly error: unknown;
}

const rejected: Rejection[] = vi.hoisted(() => []);

vi.mock('../src/recipe/load.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../src/recipe/load.js')>();
  const loadRecipe: typeof mod.loadRecipe = (input, file, options) => {
    try {
      return mod.loadRecipe(input, file, options);
    } catch (error) {
      rejected.push({ input: typeof input === 'string' ? input : input.slice(), file, options, error });
      throw error;
    }
  };
  return { ...mod, loadRecipe };
});

/** What must agree between the thrown error and the first collected one. */
function shape(e: unknown): unknown {
  if (!(e instanceof RecipeSchemaError)) return { other: String(e) };
  const p = e as RecipeSchemaError & { line?: number; col?: number; endCol?: number; reason?: string };
  return { name: e.name, class: e.constructor.name, message: e.message, line: p.line, col: p.col, endCol: p.endCol };
}

function thrown(text: string, file = 'r.yaml'): unknown {
  try {
    loadRecipe(text, file);
  } catch (e) {
    return e;
  }
  throw new Error(`accepted: ${text}`);
}

const reasons = (text: string, file = 'r.yaml'): string[] =>
  recipeErrors(text, file).map((e) => (e as RecipeError).reason);

// Three independent mistakes in three top-level keys: a bad `trials`, a bad pattern regex, a misspelt key.
const THREE = `schema_version: 1
mode: probe
trials: 0
mitigation_axis: [none]
diagnostic_axis: [none]
custom_patterns:
  - id: oom
    match: {regex: "out of (memory"}
tier3_vram_growt: true
`;

describe('recipeErrors: every independent error, in the order of the checks', () => {
  it('three mistakes in different keys: three errors, the first is what loadRecipe throws', () => {
    const errors = recipeErrors(THREE, 'r.yaml');
    expect(errors.map((e) => `${(e as RecipeError).line}:${(e as RecipeError).reason.split(':')[0]}`)).toEqual([
      '9:recipe', // the unknown-key check runs before the values are read
      '3:recipe.trials',
      '8:recipe.custom_patterns[0].match.regex',
    ]);
    expect(errors[0]!.message).toContain("did you mean 'tier3_vram_growth'");
    expect(shape(errors[0])).toEqual(shape(thrown(THREE)));
    expect(errors.every((e) => e instanceof RecipeError)).toBe(true);
  });

  it('the playground gets a diagnostic per error', () => {
    const d = recipeErrors(THREE, 'recipe.yaml').map(toDiagnostic);
    expect(d.map((x) => [x.source, x.line, x.col])).toEqual([
      ['recipe', 9, 1],
      ['recipe', 3, 9],
      ['recipe', 8, 20],
    ]);
  });

  it('a valid recipe: no errors, and loadRecipeCollecting returns the recipe', () => {
    expect(recipeErrors(PROBE, 'r.yaml')).toEqual([]);
    const c = loadRecipeCollecting(PROBE, 'r.yaml');
    expect(c.errors).toEqual([]);
    expect(c.recipe?.trials).toBe(1);
    const bad = loadRecipeCollecting(THREE, 'r.yaml');
    expect(bad.recipe).toBeNull();
    expect(bad.errors).toHaveLength(3);
  });

  it('one error per custom pattern entry and per tests: sample; within one entry only the first', () => {
    const text = `custom_patterns:
  - {id: a, match: {regex: "(", condition: "1 +"}}
  - {id: b, match: {regex: x}, on_match: boom}
  - {id: c, match: {regex: y}}
tests:
  - {name: t1, log: x, expect: {verdict: maybe}}
  - {name: t2, log: y, expect: {verdict: pass}, extra: 1}
`;
    expect(reasons(text).map((r) => r.split(':')[0])).toEqual([
      'recipe.custom_patterns[0].match.regex',
      'recipe.custom_patterns[1].on_match',
      'recipe.tests[0].expect.verdict',
      'recipe.tests[1]',
    ]);
  });

  it('a bad custom pattern: references to custom ids are not checked (no spurious unknown-detector error)', () => {
    const text = `${PROBE}custom_patterns:
  - {id: a, match: {regex: "("}}
disable_detectors: ['custom:a', 'tier4:nope']
retry: {max: 1, on: ['custom:a']}
tests:
  - {name: t, log: x, expect: {verdict: fail, detectors: ['custom:a']}}
`;
    const r = reasons(text);
    // custom:a is not reported (its pattern failed to load); tier4:nope does not depend on the patterns.
    expect(r.map((x) => x.split(':')[0])).toEqual([
      'recipe.custom_patterns[0].match.regex',
      'recipe.disable_detectors',
    ]);
    expect(r[1]).toContain("'tier4:nope'");
    expect(r.join('\n')).not.toContain("'custom:a' names no custom pattern");
  });

  it('an invalid mode: the mode-dependent checks are skipped; the unknown-key check and schema_version still run', () => {
    const text = `mode: prob\nschema_version: 2\ntrials: 0\ncustom_patterns: [{id: a, match: {regex: x}}]\ntirals: 1\n`;
    expect(reasons(text).map((r) => r.split(':')[0])).toEqual([
      'recipe.mode',
      'recipe', // unknown key 'tirals'
      'recipe.schema_version',
    ]);
  });

  it('a misspelt required key is reported once, not again as missing', () => {
    const text = PROBE.replace('trials: 1', 'trails: 1');
    const errors = reasons(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("did you mean 'trials'");
    // With no misspelling, each missing required key is its own error.
    expect(reasons('mode: probe\nschema_version: 1\n')).toEqual([
      "recipe (mode: probe): missing required key 'trials'",
      "recipe (mode: probe): missing required key 'mitigation_axis'",
      "recipe (mode: probe): missing required key 'diagnostic_axis'",
    ]);
  });

  it('probe-only keys in a triage recipe are reported once and not validated', () => {
    const text = `trials: 1\ndisable_detectors: ['custom:x']\nretry: {max: 1, on: [bogus]}\nhang_window_sec: -1\n`;
    const r = reasons(text);
    expect(r.map((x) => x.split(':')[0])).toEqual(['recipe', 'recipe.hang_window_sec']);
    expect(r[0]).toContain('probe-mode only');
  });

  it('YAML syntax errors, duplicate keys and bad UTF-8 stop it: one error', () => {
    expect(recipeErrors('a: [1\ntrials: 0\n', 'r.yaml')).toHaveLength(1);
    expect(recipeErrors(`${PROBE}trials: 2\n`, 'r.yaml')).toHaveLength(1);
    expect(recipeErrors(new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0x0a]), 'r.yaml')).toHaveLength(1);
  });

  it('over fixtures/recipes/: errors[0] is what loadRecipe throws, and a valid fixture has none', () => {
    const dir = 'fixtures/recipes';
    for (const name of readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f))) {
      const bytes = readFileSync(join(dir, name));
      const errors = recipeErrors(bytes, name);
      let error: unknown = null;
      try {
        loadRecipe(bytes, name);
      } catch (e) {
        error = e;
      }
      if (error === null) expect(errors, name).toEqual([]);
      else expect(shape(errors[0]), name).toEqual(shape(error));
    }
  });
});

// The recipe test corpus, run here under the wrapped loadRecipe: their rejections are recorded.
await import('./recipe.test.js');
await import('./recipe-pyyaml-quirks.test.js');
await import('./recipe-sweep-keys.test.js');
await import('./recipe-unknown-keys.test.js');
await import('./classifier-keys.test.js');

describe('the recipe test corpus', () => {
  it('for every recipe its tests reject, recipeErrors()[0] is the error loadRecipe throws', () => {
    expect(rejected.length).toBeGreaterThan(100);
    for (const r of rejected) {
      const label = typeof r.input === 'string' ? r.input : `<${r.input.length} bytes>`;
      let errors: unknown[];
      try {
        errors = recipeErrors(r.input, r.file, r.options);
      } catch (e) {
        // Not a recipe error (an engine failure the test provokes): thrown alike.
        errors = [e];
      }
      expect(errors.length, label).toBeGreaterThan(0);
      if (r.error instanceof RecipeError && r.error.reason.endsWith('parse error (nesting deeper than 200 levels)')) {
        // Where `yaml` runs out of stack depends on the caller's stack depth: the reason agrees, not the column.
        expect((errors[0] as RecipeError).reason, label).toBe(r.error.reason);
        continue;
      }
      expect(shape(errors[0]), label).toEqual(shape(r.error));
    }
  });
});
