/**
 * Issue 35's scenario kept as a fixture: a realistic training-job recipe (fixtures/training/recipe.yaml) and a fake
 * trainer with one failure mode per argument, run through `aorta-probe run` as a user would. docs/recipes.md "A
 * training job, end to end" shows the same recipe and these verdicts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

const RECIPE = 'fixtures/training/recipe.yaml';
const TRAINER = 'fixtures/training/fake-trainer.mjs';
const root = mkdtempSync(join(tmpdir(), 'aorta-training-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Result {
  verdict: string;
  failure_detectors_fired: string[];
  warn_detectors_fired: string[];
  exit_code: number;
}

async function trial(mode: string): Promise<{ code: number; result: Result; err: string }> {
  const out = join(root, mode);
  const r = await cliInProcess([
    'run',
    '--quiet',
    '--gpu-tool',
    'none',
    '--recipe',
    RECIPE,
    '--out',
    out,
    '--timeout',
    '60',
    '--',
    process.execPath,
    TRAINER,
    mode,
  ]);
  return { code: r.code, err: r.err, result: JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Result };
}

describe('a training job, end to end', { timeout: 60_000 }, () => {
  it('check: the recipe is valid, without warnings, and its self-tests pass', async () => {
    expect(await cliInProcess(['check', RECIPE])).toEqual({
      code: 0,
      out: `${RECIPE}: valid (5 custom patterns, 2 self-tests passed)\n`,
      err: '',
    });
  });

  it.each([
    ['healthy', 0, 'pass', [], []],
    ['tqdm', 0, 'pass', [], []],
    ['slow', 0, 'pass', [], ['custom:slow_step']],
    [
      'nan',
      1,
      'fail',
      ['tier1:exit_nonzero', 'custom:nan_loss', 'tier4:nan_signature', 'meta:missing_pass_signal'],
      [],
    ],
    ['oom', 1, 'fail', ['tier1:exit_nonzero', 'custom:hip_oom', 'meta:missing_pass_signal'], []],
    [
      'nccl',
      1,
      'fail',
      ['tier1:exit_nonzero', 'tier4:collective_timeout', 'custom:nccl_watchdog', 'meta:missing_pass_signal'],
      [],
    ],
    ['hang', 1, 'fail', ['tier2:hang', 'meta:missing_pass_signal'], []],
  ])('%s: exit %i, %s', async (mode, code, verdict, failures, warnings) => {
    const t = await trial(mode);
    expect([t.code, t.result.verdict, t.result.failure_detectors_fired, t.result.warn_detectors_fired]).toEqual([
      code,
      verdict,
      failures,
      warnings,
    ]);
    if (mode === 'hang') expect(t.err).toMatch(/^aorta-probe: hang detected at \d+\.\d s \(no output 2 s, no I\/O\)/m);
  });
});
