/**
 * A misspelt recipe key, at any level the schema knows, gets the allowed key it is closest to in one line; only
 * when some unknown key is close to none are all the allowed keys listed (the original's message). The
 * correction also travels as the error's `suggestion`, which `check --format sarif` turns into a SARIF fix.
 */
import { describe, expect, it } from 'vitest';
import { loadRecipe, RecipeError, VALID_TOP_LEVEL } from '../src/recipe/index.js';
import { loadSweepPlan } from '../src/sweep/index.js';
import { cliInProcess as cli } from './support/run-cli.js';
import { customPatternsYaml, PROBE } from './support/recipes.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function reject(text: string): RecipeError {
  try {
    loadRecipe(text, 'r.yaml');
  } catch (e) {
    if (e instanceof RecipeError) return e;
    throw e;
  }
  throw new Error(`accepted: ${text}`);
}

describe('did you mean, per level', () => {
  it.each<[string, string, string, [number, number], string | null]>([
    [
      'top level',
      `${PROBE}custom_pattern:\n  - {id: a, match: {regex: x}}\n`,
      "r.yaml:6:1: recipe: unknown key 'custom_pattern'; did you mean 'custom_patterns'?",
      [6, 1],
      'custom_patterns',
    ],
    [
      'a custom pattern',
      customPatternsYaml('{id: a, mach: {regex: x}}'),
      "r.yaml:2:13: recipe.custom_patterns[0]: unknown key 'mach'; did you mean 'match'?",
      [2, 13],
      'match',
    ],
    [
      'match: conditon',
      customPatternsYaml("{id: a, match: {regex: x, conditon: 'True'}}"),
      "r.yaml:2:31: recipe.custom_patterns[0].match: unknown key 'conditon'; did you mean 'condition'?",
      [2, 31],
      'condition',
    ],
    [
      'match: regx',
      customPatternsYaml('{id: a, match: {regx: x}}'),
      "r.yaml:2:21: recipe.custom_patterns[0].match: unknown key 'regx'; did you mean 'regex'?",
      [2, 21],
      'regex',
    ],
    [
      'confound',
      `${PROBE}confound: {treshold: 2}\n`,
      "r.yaml:6:12: recipe.confound: unknown key 'treshold'; did you mean 'threshold'?",
      [6, 12],
      'threshold',
    ],
    [
      'tests[].expect',
      `${customPatternsYaml('{id: a, match: {regex: x}}')}tests:\n  - {name: t, log: x, expect: {verdit: fail}}\n`,
      "r.yaml:4:32: recipe.tests[0].expect: unknown key 'verdit'; did you mean 'verdict'?",
      [4, 32],
      'verdict',
    ],
    [
      'exit_codes',
      `${PROBE}exit_codes: {verdicts: {fail: 5}}\n`,
      "r.yaml:6:14: recipe.exit_codes: unknown key 'verdicts'; did you mean 'verdict'?",
      [6, 14],
      'verdict',
    ],
  ])('%s', (_level, text, message, at, suggestion) => {
    const e = reject(text);
    expect(e.message.split('\n')[0]).toBe(message);
    expect([e.line, e.col]).toEqual(at);
    expect(e.suggestion).toBe(suggestion);
  });

  it('several unknown keys, each close to one: each reported with its suggestion', () => {
    const e = reject(customPatternsYaml('{id: a, match: {regx: x, conditon: y}}'));
    expect(e.reason).toBe(
      "recipe.custom_patterns[0].match: unknown keys 'conditon' (did you mean 'condition'?), 'regx' (did you mean 'regex'?)",
    );
    // The position and the fix are the first one's in the document.
    expect([e.line, e.col, e.suggestion]).toEqual([2, 21, 'regex']);
  });

  it('a key close to nothing: every allowed key is listed, and the close ones still suggested', () => {
    const top = reject(`${PROBE}garbage: 1\n`);
    expect(top.reason).toBe(
      `recipe: unknown top-level keys ['garbage']; allowed: [${[...VALID_TOP_LEVEL].map((k) => `'${k}'`).join(', ')}]`,
    );
    expect(top.suggestion).toBe(null);
    const mixed = reject(customPatternsYaml('{id: a, match: {regx: x, flags: i}}'));
    expect(mixed.reason).toBe(
      "recipe.custom_patterns[0].match: unknown keys ['flags', 'regx']; allowed: ['condition', 'regex']; did you mean 'regex' for 'regx'?",
    );
  });

  it('the sweep keys too (stop_after, retry, retain)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aorta-keys-'));
    const f = join(dir, 'sweep.yaml');
    writeFileSync(f, `${PROBE}retry: {max_attempt: 2}\n`);
    await expect(loadSweepPlan(f, {})).rejects.toThrow("recipe.retry: unknown key 'max_attempt'; did you mean ");
  });
});

describe('check shows the one line, and SARIF carries the suggested key as a fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-keys-'));
  const file = join(dir, 'r.yaml');
  writeFileSync(file, `${PROBE}custom_pattern:\n  - {id: a, match: {regex: x}}\n`);

  it('text', async () => {
    const r = await cli(['check', file]);
    expect(r.code).toBe(1);
    expect(r.out.split('\n')[0]).toBe(
      `${file}:6:1: recipe: unknown key 'custom_pattern'; did you mean 'custom_patterns'?`,
    );
  });

  it('sarif', async () => {
    const r = await cli(['check', '--format', 'sarif', file]);
    const result = (
      JSON.parse(r.out) as {
        runs: {
          results: {
            ruleId: string;
            fixes?: {
              artifactChanges: {
                replacements: { deletedRegion: object; insertedContent: { text: string } }[];
              }[];
            }[];
          }[];
        }[];
      }
    ).runs[0]!.results[0]!;
    expect(result.ruleId).toBe('RecipeSchemaError');
    expect(result.fixes?.[0]?.artifactChanges[0]?.replacements[0]).toEqual({
      deletedRegion: { startLine: 6, startColumn: 1, endLine: 6, endColumn: 15 },
      insertedContent: { text: 'custom_patterns' },
    });
  });
});
