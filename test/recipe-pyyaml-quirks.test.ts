/**
 * The messages and positions a recipe author sees where PyYAML's reading of YAML differs from the
 * spec's (docs/deviations-yaml.md). The golden corpus (yaml-parity.test.ts) checks values and
 * accept/reject; this checks the text of each new rejection and where it points, through
 * `loadRecipe` as the CLI calls it.
 */
import { describe, expect, it } from 'vitest';
import { loadRecipe, RecipeSchemaError } from '../src/index.js';
import { parseYaml, reprNode } from '../src/recipe/tree.js';

function reject(text: string): { reason: string; at: [number, number, number] } {
  try {
    loadRecipe(text, 'r.yaml');
  } catch (e) {
    if (!(e instanceof RecipeSchemaError)) throw e;
    const r = e as RecipeSchemaError & { reason: string; line: number; col: number; endCol: number };
    return { reason: r.reason, at: [r.line, r.col, r.endCol] };
  }
  throw new Error('loaded');
}

const P = 'custom_patterns:\n  - id: a\n    match:\n      regex: x\n';

describe('PyYAML scanner differences are positioned parse errors', () => {
  it.each([
    [
      `${P}    on_match:\tfail\n`,
      "recipe r.yaml: parse error (found character '\\t' (a tab) that cannot start any token: PyYAML indents and separates with spaces only (tabs may stand inside quotes, block scalars and comments))",
      [5, 14, 15],
    ],
    [
      `${P}    on_match: fail\t# c\n`,
      "recipe r.yaml: parse error (found character '\\t' (a tab) that cannot start any token: PyYAML indents and separates with spaces only (tabs may stand inside quotes, block scalars and comments))",
      [5, 19, 20],
    ],
    [
      'disable_detectors: [a?b]\n',
      "recipe r.yaml: parse error ('?' in a plain scalar inside a flow collection: PyYAML reads it as a mapping-key indicator; quote the scalar)",
      [1, 22, 23],
    ],
    [
      "disable_detectors: [?'a']\n",
      "recipe r.yaml: parse error ('?' starting a plain scalar inside a flow collection: PyYAML reads it as a mapping-key indicator; write '? ' or quote the scalar)",
      [1, 21, 22],
    ],
    [
      'ticket: &t: x\n',
      "recipe r.yaml: parse error (anchor name '&t:': PyYAML's anchor names are ASCII letters, digits, '-' and '_' (it ends this one before \":\"))",
      [1, 11, 12],
    ],
    [
      `${P}: fail\n`,
      "recipe r.yaml: parse error (expected a mapping key before ':' (PyYAML: expected <block end>, but found ':'))",
      [5, 1, 2],
    ],
    [
      `%YAML 2.0\n---\n${P}`,
      'recipe r.yaml: parse error (found incompatible YAML document (version 1.* is required))',
      [1, 1, 10],
    ],
    [`%YAML 1.1\n%YAML 1.1\n---\n${P}`, 'recipe r.yaml: parse error (found duplicate YAML directive)', [2, 1, 10]],
    [`%YAML 1.1\n${P}`, "recipe r.yaml: parse error (expected '<document start>' after the directives)", [2, 1, 2]],
    ['...\ncustom_patterns: ~\n', "recipe r.yaml: parse error (expected the node content, but found '...')", [1, 1, 4]],
    [
      'ticket: &x a\ncustom_patterns:\n  - id: &x b\n',
      "recipe r.yaml: parse error (found duplicate anchor 'x' (first defined at line 1, col 9))",
      [3, 9, 11],
    ],
    [
      'ticket: 2001-02-30\n',
      "recipe r.yaml: parse error (invalid timestamp '2001-02-30': day is out of range for month)",
      [1, 9, 19],
    ],
    [
      `${P}    on_match: !!binary aGVsbA\n`,
      'recipe r.yaml: parse error (failed to decode base64 data: Incorrect padding)',
      [5, 15, 23],
    ],
    [
      'ticket: a\u2028b\n',
      'recipe r.yaml: parse error (unsupported line break (U+2028): PyYAML reads it as a line break but keeps it in values; use LF or CRLF)',
      [1, 10, 11],
    ],
  ])('%j', (text, reason, at) => {
    expect(reject(text)).toEqual({ reason, at });
  });
});

describe('values PyYAML reads differently from the spec', () => {
  it('a date is Python’s date in a typed rejection; a datetime keeps its offset and microseconds', () => {
    const probe = 'mode: probe\ntrials: 1\nmitigation_axis: [a]\ndiagnostic_axis: [b]\n';
    expect(reject(`${probe}schema_version: 2001-12-14\n`).reason).toBe(
      'recipe.schema_version: must be an integer, got date (datetime.date(2001, 12, 14))',
    );
    const { root } = parseYaml('v: 2001-12-14 21:59:43.1234567 -5\n', false);
    expect(reprNode(root!)).toBe(
      "{'v': datetime.datetime(2001, 12, 14, 21, 59, 43, 123456, tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400)))}",
    );
  });

  it('CR alone and NEL are line breaks, and positions count them as lines', () => {
    const r = loadRecipe('custom_patterns:\r  - id: a\x85    match: {regex: x}\r', 'r.yaml');
    expect(r.customPatterns.map((p) => [p.id, p.regex, p.line, p.col])).toEqual([['a', 'x', 2, 5]]);
    expect(reject('custom_patterns:\r  - id: a\x85    match: {regex: "("}\r').at).toEqual([3, 20, 23]);
  });

  it('a quoted condition may continue on a less indented line, and `[-]` is the string "-"', () => {
    const r = loadRecipe(`${P}      condition: "exit_code\n!= 0"\n`, 'r.yaml');
    expect(r.customPatterns[0]!.conditionSource).toBe('exit_code != 0');
    expect(reprNode(parseYaml('[-, a]\n', false).root!)).toBe("['-', 'a']");
  });

  it('%YAML 1.2 keeps YAML 1.1 resolution, as in PyYAML', () => {
    const { root } = parseYaml('%YAML 1.2\n---\na: yes\nb: 1e5\n', false);
    expect(reprNode(root!)).toBe("{'a': True, 'b': '1e5'}");
  });
});
