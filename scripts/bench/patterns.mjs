// The scanning workload of issue 4 ("Performance"): the 7 Tier 4 patterns plus 3 typical custom
// patterns that rarely match, each with a literal; and the every-line pattern with a condition
// that never holds. One definition, handed to every engine (ours as a recipe, the peers as
// regex sources), so all of them look for exactly the same things.
import { TIER4_PATTERNS } from '../../dist/src/index.js';

export const CUSTOM_PATTERNS = [
  { id: 'fatal', regex: 'FATAL: (?P<why>.+)', condition: null },
  { id: 'exit_status', regex: 'exit status (?P<code>\\d+)', condition: "int(capture['code']) != 0" },
  { id: 'oom_killer', regex: 'out of memory \\(oom_kill', condition: 'exit_code == 137' },
];

/** Matches the timestamp that starts every generated line; the condition can never hold. */
export const EVERY_LINE_PATTERN = {
  id: 'every_line',
  regex: '(?P<ts>\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+)',
  condition: "len(capture['ts']) > 100",
};

export const SCAN_VARS = { exit_code: 1, walltime_sec: 3600.0, peak_vram_mib: 61440 };

/**
 * The failure ids a classification's log detectors fired, sorted, once each: what the peers report (they see the
 * log only; Tier 1's exit status is not theirs to see).
 */
export function logFailures(detectors) {
  return [...new Set(detectors.filter((d) => d.kind === 'tier4' || d.kind === 'fail').map((d) => d.id))].sort();
}

export function tier4Sources() {
  return TIER4_PATTERNS.map((p) => ({ id: p.detectorId, regex: p.regex, pythonFlags: [...p.pythonFlags] }));
}

/** A bare `custom_patterns:` recipe for loadRecipe (strings as JSON, which YAML accepts). */
export function recipeYaml(patterns) {
  const lines = ['custom_patterns:'];
  for (const p of patterns) {
    lines.push(`  - id: ${p.id}`, '    match:', `      regex: ${JSON.stringify(p.regex)}`);
    if (p.condition) lines.push(`      condition: ${JSON.stringify(p.condition)}`);
    lines.push('    on_match: fail');
  }
  return `${lines.join('\n')}\n`;
}

/** Python `(?P<name>` → JS `(?<name>`; flags from the Tier 4 catalogue's Python flag names. */
export function toJsRegExp(src, pythonFlags = [], extra = '') {
  let flags = extra;
  if (pythonFlags.includes('MULTILINE')) flags += 'm';
  if (pythonFlags.includes('IGNORECASE')) flags += 'i';
  return new RegExp(src.replace(/\(\?P</g, '(?<'), flags);
}
