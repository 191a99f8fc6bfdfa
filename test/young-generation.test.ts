/**
 * src/cli/young-generation.ts relies on V8 reading `--semi-space-growth-factor` at each scavenge, so that setting
 * it at run time holds the young generation at its starting size. That is V8 behaviour, not API: this test pins
 * it for the node that runs the suite, in a child process (the flag is process-wide).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const MODULE = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'cli', 'young-generation.js')).href;

/** The new space's size after 2 million short-lived objects, with or without holdYoungGeneration() first. */
function newSpaceAfterChurn(hold: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { holdYoungGeneration } from ${JSON.stringify(MODULE)};
    if (${hold}) holdYoungGeneration();
    let keep = [];
    for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 5000) keep = []; }
    console.log(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('holdYoungGeneration', () => {
  it('keeps the new space at its starting 2 MiB (two 1 MiB semi-spaces) through an allocation churn', () => {
    expect(newSpaceAfterChurn(true)).toBe(2 * 1024 * 1024);
  });

  it('is what makes the difference: without it, V8 grows the new space past 2 MiB', () => {
    expect(newSpaceAfterChurn(false)).toBeGreaterThan(2 * 1024 * 1024);
  });
});
