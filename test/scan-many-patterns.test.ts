/**
 * A catalogue of hundreds of patterns (issue 38): loading it compiles no RE2 program (deferred-compile.ts), a scan
 * compiles only the patterns whose literals a window holds, and the literals past the byte scanner's table
 * (many-literals.ts) decide as exactly as the rest — the same result with the prefilter off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadRecipe } from '../src/recipe/index.js';
import { engineStats } from '../src/regex/engine.js';
import { scanStream, WindowedMatcher } from '../src/scan/index.js';
import { failingIds, warningIds } from './support/scan-results.js';

const WORDS = ['cuda', 'nccl', 'hip', 'rocm', 'kernel', 'device', 'memory', 'launch', 'timeout', 'driver'];

/** Pattern i: a signature with a case-insensitive literal and two `\S+` captures, as a failure catalogue has. */
function catalogue(n: number): string {
  const lines = ['custom_patterns:'];
  for (let i = 0; i < n; i++) {
    const w = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`;
    lines.push(
      `  - id: sig${i}`,
      '    match:',
      `      regex: '(?i)${w} error code ${i}: (?P<msg>\\S+) at (?P<where>\\S+)'`,
      ...(i % 5 === 0 ? ["      condition: \"capture['msg'] != 'benign'\""] : []),
      `    on_match: ${i % 3 === 0 ? 'warn' : 'fail'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const VARS = { exit_code: 1, walltime_sec: 10, peak_vram_mib: null };

afterEach(() => {
  WindowedMatcher.prefilter = true;
});

describe('a catalogue of 600 patterns', () => {
  const recipe = (() => {
    const before = engineStats().compiles;
    const r = loadRecipe(catalogue(600), 'catalogue.yaml');
    return { r, compiles: engineStats().compiles - before };
  })();

  it('loads without compiling a single RE2 program', () => {
    expect(recipe.compiles).toBe(0);
  });

  it('fires the signatures present (past the byte table too), with the prefilter on and off alike', async () => {
    const lines: string[] = [];
    for (let k = 0; k < 3000; k++)
      lines.push(`2026-12-06T05:00:${String(k % 60).padStart(2, '0')} step ${k} loss=0.1${k}`);
    // Signatures early in the catalogue (in the byte scanner's table) and late (past it), in other cases.
    lines[100] = 'CUDA CUDA Error Code 0: bad-launch at kernel.cu:12';
    lines[1500] = 'driver rocm error code 589: oops at rank3';
    lines[2000] = 'kernel timeout error code 4: benign at here'; // sig4: no condition
    lines[2500] = 'device device error code 595: benign at x'; // sig595: its condition is false for 'benign'
    lines[2600] = 'LAUNCH driver error code 597: bad at y';
    const log = `${lines.join('\n')}\n`;
    const bytes = new TextEncoder().encode(log);
    const strip = (s: Awaited<ReturnType<typeof scanStream>>) => ({ ...s, tier_durations_ms: null });
    const before = engineStats().compiles;
    const on = strip(await scanStream(recipe.r, [bytes], VARS, { windowBytes: 64 * 1024 }));
    const compiledWithPrefilter = engineStats().compiles - before;
    WindowedMatcher.prefilter = false;
    const off = strip(await scanStream(recipe.r, [bytes], VARS, { windowBytes: 64 * 1024 }));
    expect(on).toEqual(off);
    expect(failingIds(on)).toEqual(['custom:sig589', 'custom:sig4']); // in the order they fired
    expect(warningIds(on)).toEqual(['custom:sig0', 'custom:sig597']);
    // Only the patterns whose literals some window held were compiled (a few; the other ~595 never were).
    expect(compiledWithPrefilter).toBeGreaterThan(0);
    expect(compiledWithPrefilter).toBeLessThan(20);
  }, 120_000);
});
