// Issue 12 §1 at the recipe and scan level: a pattern the engine cannot hold or cannot match fails alone,
// at its recipe position or as a meta detector, and every other pattern and the catalogue keep working.
import { describe, expect, it } from 'vitest';
import { loadRecipe, RecipeError } from '../src/recipe/index.js';
import { scanLog } from '../src/scan/index.js';
import { failingIds } from './support/scan-results.js';

const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

describe('regex engine containment in recipes and scans', () => {
  it('a pattern too large for the engine is a recipe error at its file:line:col; the next recipe loads', () => {
    const text = `custom_patterns:\n  - id: ok\n    match: {regex: NCCL}\n  - id: big\n    match: {regex: "(?s)${'[^a]{1000}'.repeat(45)}"}\n`;
    let err: unknown;
    try {
      loadRecipe(text, 'r.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RecipeError);
    expect((err as Error).message).toMatch(
      /^r\.yaml:5:20: recipe\.custom_patterns\[1\]\.match\.regex: invalid regex \(too large for the regex engine: /,
    );
    const again = loadRecipe('custom_patterns:\n  - id: nccl\n    match: {regex: NCCL}\n', 'r2.yaml');
    expect(failingIds(scanLog(again, 'x\nNCCL WARN\nCUDA error: out of memory\n', VARS))).toEqual([
      'custom:nccl',
      'tier4:cuda_error',
    ]);
  }, 60_000);
});
