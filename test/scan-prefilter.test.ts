import { afterEach, describe, expect, it } from 'vitest';
import { loadRecipe } from '../src/recipe/index.js';
import { scanLog, scanStream, WindowedMatcher } from '../src/scan/index.js';
import { rng } from './support/rng.js';
import { failingIds, warningIds } from './support/scan-results.js';

const LINES = [
  'step 12 loss=0.5123 grad_norm=1.02',
  'step 13 loss=nan',
  'Loss is NaN, skipping',
  'LOSS=NAN',
  'Traceback (most recent call last):',
  '  File "train.py", line 3',
  'hipError_OutOfMemory',
  'HIP error: x',
  'cudaErrorIllegalAddress',
  'CUDA error: y',
  'Error code: 17',
  'NCCL error: z',
  'RCCL ERROR',
  'FATAL: disk full',
  'exit status 137',
  'Exit Status 9',
  'vram=95000 MiB',
  'Watchdog caught collective operation timeout',
  '😀 ok',
  'ſtatus \u212aelvin',
  'café',
  '',
  'all good',
];
/** Lines that no Tier 4 pattern matches, so that some logs pass and only custom patterns decide. */
const BENIGN = [
  'step 12 loss=0.5123 grad_norm=1.02',
  'step 13 loss=nan',
  'FATAL: disk full',
  'exit status 137',
  'Exit Status 9',
  'vram=95000 MiB',
  '😀 ok',
  'ſtatus \u212aelvin',
  'café',
  '',
  'all good',
];
const PATTERNS = [
  'FATAL: (?P<why>.+)',
  'exit status (?P<code>\\d+)',
  '(?i)exit status (?P<code>\\d+)',
  'vram=(?P<used>\\d+)',
  '(?i)watchdog',
  'loss=(?P<loss>[^ \\n]+)',
  'caf\\x{e9}|😀',
  '(?i)kelvin',
  'grad_norm=(?P<g>[0-9.]+)',
  '^$',
];
const CONDITIONS = [
  null,
  "math.isnan(float(capture['loss']))",
  "int(capture['code']) > 100",
  "float(capture['used']) > 90000",
  'exit_code != 0',
];

afterEach(() => {
  WindowedMatcher.prefilter = true;
});

describe('literal prefilter, end to end', () => {
  // As bytes, the log also goes through the byte pass, whose answers the matchers then trust (scan.ts #step).
  it('scanning with and without the prefilter, as text and as bytes, gives identical results (200 generated recipes and logs)', async () => {
    const next = rng(777);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    let scanned = 0;
    let fired = 0;
    for (let i = 0; i < 200; i++) {
      const n = 1 + Math.floor(next() * 3);
      const entries: string[] = [];
      for (let k = 0; k < n; k++) {
        const regex = JSON.stringify(pick(PATTERNS));
        const cond = pick(CONDITIONS);
        entries.push(
          `  - id: p${k}\n    match:\n      regex: ${regex}\n${cond === null ? '' : `      condition: ${JSON.stringify(cond)}\n`}    on_match: ${pick(['fail', 'warn', 'info'])}\n`,
        );
      }
      let recipe: ReturnType<typeof loadRecipe>;
      try {
        recipe = loadRecipe(`custom_patterns:\n${entries.join('')}`, `r${i}.yaml`);
      } catch {
        continue; // a condition that reads a group its regex lacks is still valid; anything else is a generator slip
      }
      const lines: string[] = [];
      const count = Math.floor(next() * 60);
      const vocabulary = next() < 0.5 ? BENIGN : LINES;
      for (let k = 0; k < count; k++) lines.push(pick(vocabulary));
      const log = lines.join(next() < 0.2 ? '\r\n' : '\n');
      const vars = { exit_code: pick([0, 1, 137]), walltime_sec: 1, peak_vram_mib: null };
      const windowBytes = pick([64, 100, 1000, undefined]);
      const opts = windowBytes === undefined ? {} : { windowBytes };
      const strip = (r: ReturnType<typeof scanLog>) => ({ ...r, tier_durations_ms: null });
      WindowedMatcher.prefilter = true;
      const withPrefilter = strip(scanLog(recipe, log, vars, opts));
      const asBytes = strip(await scanStream(recipe, [new TextEncoder().encode(log)], vars, opts));
      WindowedMatcher.prefilter = false;
      const without = strip(scanLog(recipe, log, vars, opts));
      scanned++;
      // a failure or a warning fired (what the classifier's lists would hold; no pattern here is required_for_pass)
      const findings =
        failingIds(without).length +
        warningIds(without).length +
        without.missing_required.length +
        without.engine_failures.length;
      if (findings > 0) fired++;
      const what = `recipe ${i}: ${JSON.stringify(entries)} log ${JSON.stringify(log).slice(0, 200)}`;
      expect(withPrefilter, what).toEqual(without);
      expect(asBytes, `${what} (as bytes)`).toEqual(without);
    }
    // Both outcomes must be common, or the comparison proves little.
    expect(scanned).toBeGreaterThan(150);
    expect(fired).toBeGreaterThan(50);
    expect(scanned - fired).toBeGreaterThan(10);
  }, 120_000);
});
