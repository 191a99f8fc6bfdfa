/**
 * A trial whose log is well over 100 MiB, scanned as it arrives with bounded memory, including a custom pattern
 * whose condition reads exit_code and has twice as many distinct candidates as the in-memory budget (the rest are
 * spilled to a file and read back after the exit).
 *
 * The runner runs in its own Node process with a 64 MiB old-space cap (a runner that held the log — 128 MiB of
 * bytes, 128–256 MiB as a JS string — would die of "heap out of memory"), and the test bounds its peak RSS against
 * the same process running a tiny trial.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleCli } from './support/fake-trial-tools/cli-bundle.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-big-log-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MIB = 1024 * 1024;
const BLOCKS = 128; // 128 MiB of log

// Each 1 MiB block: ordinary output plus 64 "loss=" lines with distinct values (8192 in all, twice the candidate
// budget); the NaN and a HIP error come at the very end.
const BIG_CHILD = `
const fs = require('fs');
const filler = 'rank0 tokens/s=15234.5 mem=40960MiB grad_norm=0.998 ' + 'x'.repeat(60) + '\\n';
const chunk = filler.repeat(Math.floor(16000 / filler.length));
for (let b = 0; b < ${BLOCKS}; b++) {
  let s = '';
  for (let k = 0; k < 64; k++) s += chunk + 'step ' + (b * 64 + k) + ' loss=' + (1 + (b * 64 + k) / 1e5).toFixed(5) + '\\n';
  fs.writeSync(1, s.padEnd(${MIB}, '.'));
}
fs.writeSync(1, '\\nstep final loss=nan\\nRuntimeError: HIP error: an illegal memory access\\n');
`;
const SMALL_CHILD = "console.log('step 1 loss=1.0'); console.log('step final loss=nan')";

const RECIPE = `custom_patterns:
  - id: nan_at_exit_0
    match:
      regex: "loss=(?P<loss>[a-z0-9.]+)"
      condition: "exit_code == 0 and math.isnan(float(capture['loss']))"
`;

const DRIVER = `
import { runTrial } from './trial.mjs';
import { loadRecipe } from './recipe.mjs';
const [outDir, recipeText, child] = JSON.parse(process.argv[2]);
const t0 = performance.now();
const o = await runTrial(loadRecipe(recipeText, 'big.yaml'), [process.execPath, '-e', child], { outDir, gpuTool: 'none' });
console.log(JSON.stringify({ result: o.result, logPath: o.logPath, deferred: o.deferred, ms: performance.now() - t0, maxRssKiB: process.resourceUsage().maxRSS }));
`;

let driver = '';
beforeAll(async () => {
  const bundle = await bundleCli(join(root, 'bundle'));
  driver = join(root, 'bundle', 'driver.mjs');
  writeFileSync(driver, DRIVER);
  expect(bundle.trial).toBe(join(root, 'bundle', 'trial.mjs'));
}, 60_000);

interface DriverOutput {
  result: Record<string, unknown> & { log: { bytes: number } };
  logPath: string;
  deferred: unknown[];
  ms: number;
  maxRssKiB: number;
}

async function drive(name: string, child: string): Promise<DriverOutput> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--max-old-space-size=64', driver, JSON.stringify([join(root, name), RECIPE, child])],
    { maxBuffer: 16 * MIB },
  );
  return JSON.parse(stdout) as DriverOutput;
}

it('a >100 MiB log is scanned with bounded memory, and the deferred condition still sees the final exit code', async () => {
  const small = await drive('small', SMALL_CHILD);
  expect(small.result).toMatchObject({
    verdict: 'fail',
    failure_detectors_fired: ['tier4:nan_signature', 'custom:nan_at_exit_0'],
  });
  const big = await drive('big', BIG_CHILD);
  const logBytes = statSync(big.logPath).size;
  expect(logBytes).toBeGreaterThan(BLOCKS * MIB);
  expect(big.result).toMatchObject({
    verdict: 'fail',
    exit_code: 0,
    log: { bytes: logBytes },
    failure_detectors_fired: ['tier4:nan_signature', 'custom:nan_at_exit_0', 'tier4:hip_error'],
    capture: { loss: 'nan' },
  });
  expect(big.deferred).toEqual([{ detectorId: 'custom:nan_at_exit_0', candidates: 8193, spilled: 8193 - 4096 }]);
  const growthMib = (big.maxRssKiB - small.maxRssKiB) / 1024;
  console.log(
    `big log: ${(logBytes / MIB).toFixed(1)} MiB in ${big.ms.toFixed(0)} ms; peak RSS ${(big.maxRssKiB / 1024).toFixed(1)} MiB vs ${(small.maxRssKiB / 1024).toFixed(1)} MiB for a tiny trial`,
  );
  expect(growthMib).toBeLessThan(48);
}, 120_000);
