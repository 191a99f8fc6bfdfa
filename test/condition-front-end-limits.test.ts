/**
 * Bounds of the condition and recipe front ends (issue 12 §4 bullet 4, §5 last bullet): huge input
 * is rejected by its size cap with a short message and a position, never by the JS stack, and a
 * large but plain recipe is not mistaken for an alias bomb. Timings are in the benchmark, not here.
 */
import { describe, expect, it } from 'vitest';

import { RecipeSchemaError, SandboxError, validateCondition } from '../src/index.js';
import { loadRecipe } from '../src/recipe/index.js';

function rejection(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

const TOO_LONG = (n: number): string =>
  `condition: expression length ${n} exceeds the 256-character cap (rejected before ast.parse to bound parse-time work)`;

describe('condition length cap', () => {
  it('a 30 M-character condition is rejected with a bounded excerpt', () => {
    const e = rejection(() => validateCondition(`exit_code == ${'1'.repeat(30_000_000)}`)) as SandboxError;
    expect(e).toBeInstanceOf(SandboxError);
    expect([e.kind, e.detail, e.line, e.col]).toEqual(['too-long', TOO_LONG(30_000_013), 1, 257]);
    const [head, line, caret] = e.message.split('\n');
    expect(head).toBe(`${TOO_LONG(30_000_013)} (line 1, col 257)`);
    expect(line).toBe(`  …${'1'.repeat(200)}…`);
    expect(caret).toBe(`  ${' '.repeat(81)}^`);
  });

  it('strips and counts without visiting the middle: whitespace ends, astral characters, many lines', () => {
    const astral = rejection(() => validateCondition(` \n${'😀'.repeat(1_000_000)}\t`)) as SandboxError;
    expect([astral.kind, astral.detail, astral.line, astral.col]).toEqual(['too-long', TOO_LONG(1_000_000), 1, 257]);
    const lines = rejection(() => validateCondition('x\r\n'.repeat(1_000_000))) as SandboxError;
    // Python counts CRLF as two characters; the position is the tokenizer's (CRLF is one newline).
    expect([lines.detail, lines.line, lines.col]).toEqual([TOO_LONG(2_999_998), 129, 1]);
    expect(lines.message.length).toBeLessThan(400);
  });

  it('a line longer than the excerpt is cut around the caret', () => {
    const e = rejection(() => validateCondition('x'.repeat(300))) as SandboxError;
    expect(e.message.split('\n').slice(1)).toEqual([`  …${'x'.repeat(200)}`, `  ${' '.repeat(157)}^`]);
  });
});

describe('recipe size and alias limits', () => {
  const noRegex = { compileRegex: () => undefined };

  it('200,000 nested anchors: a positioned nesting error, not a stack overflow', () => {
    const text = `custom_patterns: ${Array.from({ length: 200_000 }, (_, i) => `&a${i} [`).join('')}${']'.repeat(200_000)}\n`;
    const e = rejection(() => loadRecipe(text, 'r.yaml', noRegex)) as RecipeSchemaError & { line: number; col: number };
    expect(e).toBeInstanceOf(RecipeSchemaError);
    expect(e.message.split('\n')[0]).toMatch(
      /^r\.yaml:1:\d+: recipe r\.yaml: parse error \(nesting deeper than 200 levels\)$/,
    );
    expect(e.line).toBe(1);
    expect(e.message.length).toBeLessThan(1000);
  }, 120_000);

  it('50,000 anchors in a list: the schema error, at the first entry', () => {
    let text = 'custom_patterns:\n';
    for (let i = 0; i < 50_000; i++) text += `  - &a${i} x${i}\n`;
    const e = rejection(() => loadRecipe(text, 'r.yaml', noRegex)) as RecipeSchemaError & { line: number; col: number };
    expect(e.message.split('\n')[0]).toBe('r.yaml:2:9: recipe.custom_patterns[0]: must be a mapping, got str');
  }, 120_000);

  it('a plain 30,000-pattern recipe loads (it is not an alias bomb)', () => {
    let text = 'custom_patterns:\n';
    for (let i = 0; i < 30_000; i++) text += `  - id: p${i}\n    match:\n      regex: "pat${i}x"\n`;
    const recipe = loadRecipe(text, 'r.yaml', noRegex);
    expect(recipe.customPatterns.length).toBe(30_000);
    expect(recipe.customPatterns[29_999]!.id).toBe('p29999');
  }, 120_000);

  it('aliases that expand past the cap are rejected at the alias that crosses it', () => {
    let text = 'a0: &a0 x\n';
    for (let i = 1; i < 600; i++) text += `a${i}: &a${i} [*a${i - 1}]\n`;
    const e = rejection(() => loadRecipe(text, 'r.yaml', noRegex)) as RecipeSchemaError & { line: number; col: number };
    expect(e.message.split('\n')[0]).toBe(
      'r.yaml:448:14: recipe r.yaml: parse error (document expands to more than 100000 values through aliases (alias bomb?))',
    );
  });
});
