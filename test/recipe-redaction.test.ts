/**
 * The recipe's `redaction:` block (issue 37 §1), validated as the original's `parse_redaction` does
 * (upstream-probe-runs.md §1.1: its messages, in its order, a non-string key failing closed), at file:line:col;
 * plus our `scrub_secrets` (default true when the block is present) and `extra_patterns` (RE2-checked regexes).
 */
import { describe, expect, it } from 'vitest';
import { loadRecipe, loadRecipeCollecting } from '../src/recipe/index.js';

const HEAD = 'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n';
const load = (block: string) => loadRecipe(`${HEAD}${block}`, 'r.yaml');
const firstLine = (block: string): string => {
  try {
    load(block);
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
  return 'loaded';
};

describe('redaction: as the original parses it', () => {
  it.each([
    ['redaction: null\n', 'r.yaml:6:12: recipe.redaction: must be a mapping when present'],
    ['redaction: [a]\n', 'r.yaml:6:12: recipe.redaction: must be a mapping, got list'],
    [
      'redaction: {bogus: 1}\n',
      "r.yaml:6:13: recipe.redaction: unknown keys ['bogus']; allowed: ['scrub_env_keys', 'scrub_ip_addresses', 'scrub_paths', 'extra_patterns', 'scrub_secrets']",
    ],
    [
      'redaction: {1: x, scrub_paths: true}\n',
      "r.yaml:6:13: recipe.redaction: unknown keys ['1']; allowed: ['scrub_env_keys', 'scrub_ip_addresses', 'scrub_paths', 'extra_patterns', 'scrub_secrets']",
    ],
    [
      'redaction: {zeta: 1, alpha: 2}\n',
      "r.yaml:6:13: recipe.redaction: unknown keys ['alpha', 'zeta']; allowed: ['scrub_env_keys', 'scrub_ip_addresses', 'scrub_paths', 'extra_patterns', 'scrub_secrets']",
    ],
    [
      'redaction: {scrub_env_keys: AWS_*}\n',
      'r.yaml:6:29: recipe.redaction.scrub_env_keys: must be a list[str], got str',
    ],
    [
      'redaction: {scrub_env_keys: [1]}\n',
      'r.yaml:6:29: recipe.redaction.scrub_env_keys: must be a list[str], got list',
    ],
    ['redaction: {scrub_paths: 1}\n', 'r.yaml:6:26: recipe.redaction.scrub_paths: must be a bool, got int'],
    [
      'redaction: {scrub_ip_addresses: "yes"}\n',
      'r.yaml:6:33: recipe.redaction.scrub_ip_addresses: must be a bool, got str',
    ],
    [
      "redaction: {extra_patterns: ['(?P<x>a']}\n",
      "r.yaml:6:30: recipe.redaction.extra_patterns[0]: invalid regex (missing ): (?P<x>a): '(?P<x>a'",
    ],
    [
      "redaction: {extra_patterns: ['']}\n",
      'r.yaml:6:30: recipe.redaction.extra_patterns[0]: must be a non-empty regex (an empty one matches everywhere)',
    ],
    ['redaction: {scrub_secrets: 0}\n', 'r.yaml:6:28: recipe.redaction.scrub_secrets: must be a bool, got int'],
  ])('%j → %s', (block, message) => {
    expect(firstLine(block)).toBe(message);
  });

  it('defaults: the original three off, scrub_secrets on when the block is present', () => {
    expect(load('redaction: {}\n').redaction).toEqual({
      scrubEnvKeys: [],
      scrubPaths: false,
      scrubIpAddresses: false,
      scrubSecrets: true,
      extraPatterns: [],
    });
    expect(load('').redaction).toBeNull();
    const full = load(
      "redaction:\n  scrub_env_keys: ['AWS_*', '*_TOKEN']\n  scrub_paths: true\n  scrub_ip_addresses: true\n  scrub_secrets: false\n  extra_patterns: ['cust-[0-9]{6}']\n",
    );
    expect(full.redaction).toEqual({
      scrubEnvKeys: ['AWS_*', '*_TOKEN'],
      scrubPaths: true,
      scrubIpAddresses: true,
      scrubSecrets: false,
      extraPatterns: ['cust-[0-9]{6}'],
    });
    expect(full.scrubEnvKeys).toEqual(['AWS_*', '*_TOKEN']);
  });

  it('is probe-only, and one independent error among others when collecting', () => {
    const triage = loadRecipeCollecting('schema_version: 1\nmode: triage\nredaction: {}\n', 't.yaml');
    expect(triage.errors[0]?.message.split('\n')[0]).toMatch(/^t\.yaml:3:1: .*redaction/);
    const both = loadRecipeCollecting(`${HEAD}redaction: null\ntrials_x: 1\n`, 'r.yaml');
    expect(both.errors.map((e) => e.message.split('\n')[0])).toContain(
      'r.yaml:6:12: recipe.redaction: must be a mapping when present',
    );
  });
});
