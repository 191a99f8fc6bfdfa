/**
 * Issue 35 §5: the playground's mark for a condition rejected in a recipe said "condition: condition:" (the
 * loader's path ends in `condition`, the sandbox's message starts with it). The worker's `toDiagnostic` runs here
 * in Node, on the errors the loader and the sandbox throw.
 */
import { describe, expect, it } from 'vitest';
import { toDiagnostic } from '../playground/src/diagnostic.js';
import { SandboxError } from '../src/condition/errors.js';
import { validateCondition } from '../src/condition/validate.js';
import { loadRecipe } from '../src/recipe/index.js';
import { onePatternYaml } from './support/recipes.js';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('nothing thrown');
}

const IN_HINT =
  "`in` is not allowed: put the substring in the regex (e.g. `(?P<msg>.*out of memory.*)`); for one of a few values write `x == 'a' or x == 'b'`";

describe('playground diagnostics for rejected conditions', () => {
  it('a recipe condition says "condition:" once, with the hint beside it', () => {
    const text = onePatternYaml({ regex: 'CUDA error: (?P<msg>.*)', condition: "'oom' in capture['msg']" });
    const e = thrown(() => loadRecipe(text, 'recipe.yaml'));
    expect(e).toBeInstanceOf(SandboxError);
    const d = toDiagnostic(e);
    expect(d.message).toBe('recipe.custom_patterns[0].match.condition: forbidden AST node: In');
    expect(d.message).not.toContain('condition: condition:');
    expect(d).toMatchObject({ severity: 'error', source: 'sandbox', line: 5, col: 25, endCol: 27, node: 'In' });
    expect(d.hint).toBe(IN_HINT);
    // The full positioned message keeps the loader's (the original's) wording.
    expect(d.detail.split('\n')[0]).toBe(
      'recipe.yaml:5:25: recipe.custom_patterns[0].match.condition: condition: forbidden AST node: In',
    );
  });

  it('a node the message does not name is added once', () => {
    const text = onePatternYaml({ regex: '(?P<lvl>\\w+)', condition: "capture['lvl'].lower() == 'error'" });
    const d = toDiagnostic(thrown(() => loadRecipe(text, 'recipe.yaml')));
    expect(d.message).toBe(
      "recipe.custom_patterns[0].match.condition: forbidden call: capture['lvl'].lower (node: Call)",
    );
    expect(d.hint).toBe(
      'string methods are not allowed: for a case-insensitive match start the regex with `(?i)` (e.g. `(?i)(?P<level>error)`) and compare the capture as it is',
    );
  });

  it('a condition that is not a string keeps its message', () => {
    const text = 'custom_patterns:\n  - id: p\n    match:\n      regex: x\n      condition: 5\n';
    const d = toDiagnostic(thrown(() => loadRecipe(text, 'recipe.yaml')));
    expect(d.message).toBe('recipe.custom_patterns[0].match.condition: must be a string, got int');
  });

  it("the scratchpad's rejection (no recipe) has one prefix, and the hint", () => {
    const d = toDiagnostic(thrown(() => validateCondition('lambda x: x')));
    expect(d.message).toBe('condition: forbidden AST node: Lambda');
    expect(d.hint).toBe('`lambda` is not allowed (a condition defines no functions): write the test itself');
    expect(d.detail).toBe(
      'condition: forbidden AST node: Lambda (Lambda at line 1, col 1)\n  lambda x: x\n  ^^^^^^^^^^^',
    );
  });

  it('a rejection without a hint has no hint field', () => {
    const d = toDiagnostic(thrown(() => validateCondition("capture['x'].__class__")));
    expect('hint' in d).toBe(false);
  });
});
