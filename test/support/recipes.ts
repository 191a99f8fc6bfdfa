/**
 * Recipe builders shared by the tests (issue 34 part 5). Test files used to carry their own copies of the same few
 * recipe texts: the minimal probe header, a bare `custom_patterns:` list from YAML entries, and one pattern `p`
 * from a regex and a condition. The copies lived in five or more files under different names; they are here once,
 * under names that say what they build.
 *
 * Each builder returns exactly the text its copies did, byte for byte: tests assert line and column numbers,
 * excerpts and messages that depend on it. A test that needs another shape writes its YAML out in full.
 */
import { loadRecipe, type OnMatch, type Recipe } from '../../src/recipe/index.js';

/** The smallest valid probe-mode header: one trial, no mitigation or diagnostic axis, no patterns. */
export const PROBE = 'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n';

/**
 * A bare `custom_patterns:` list, one `  - <entry>` line per entry; each entry is the YAML after the dash,
 * usually a flow mapping such as `{id: a, match: {regex: x}}`.
 */
export function customPatternsYaml(...entries: readonly string[]): string {
  return `custom_patterns:\n${entries.map((e) => `  - ${e}\n`).join('')}`;
}

/** {@link customPatternsYaml} loaded as the file `r.yaml`. */
export function customPatternsRecipe(...entries: readonly string[]): Recipe {
  return loadRecipe(customPatternsYaml(...entries), 'r.yaml');
}

/** One custom pattern, as {@link onePatternYaml} writes it. */
export interface OnePattern {
  regex: string;
  /** Left out: the pattern has no `condition:` line. */
  condition?: string;
  /** Left out: no `on_match:` line (the loader's default applies). */
  onMatch?: OnMatch;
}

/**
 * A recipe of one pattern `p` in block style. The regex and the condition are written as JSON strings, which are
 * YAML double-quoted scalars with the same value, so any text goes in unescaped. The regex is on line 4 and the
 * condition, when given, on line 5.
 */
export function onePatternYaml({ regex, condition, onMatch }: OnePattern): string {
  let text = `custom_patterns:\n  - id: p\n    match:\n      regex: ${JSON.stringify(regex)}\n`;
  if (condition !== undefined) text += `      condition: ${JSON.stringify(condition)}\n`;
  if (onMatch !== undefined) text += `    on_match: ${onMatch}\n`;
  return text;
}
