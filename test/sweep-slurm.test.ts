/**
 * End to end on a real Slurm (scripts/slurm-up.sh starts a single-node cluster): `sweep --emit slurm` writes the
 * array script, sbatch runs it, and `report` over the shared directory gives the expected numbers.
 * Where no Slurm is up the test is skipped with a note — except under CI=true, where that is a failure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const FLAKY = fileURLToPath(new URL('../fixtures/sweep/flaky.sh', import.meta.url));

function slurmState(): string | null {
  try {
    return (
      execFileSync('sinfo', ['-h', '-o', '%T'], {
        encoding: 'utf8',
        timeout: 5000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    );
  } catch {
    return null;
  }
}
const state = slurmState();
const up = state !== null && /^(idle|mixed|allocated)/m.test(state);
const ci = process.env.CI === 'true';
if (!up && !ci)
  console.warn(
    `sweep-slurm.test.ts: SKIPPED, no Slurm cluster is up here (sinfo: ${state ?? 'not available'}); run scripts/slurm-up.sh as root to enable it`,
  );

const cli = (args: string[]) => cliInProcess(args);

describe('sweep on Slurm', { timeout: 120_000 }, () => {
  it.runIf(!up && ci)('CI=true requires a running Slurm (scripts/slurm-up.sh)', () => {
    expect.fail(
      `no Slurm cluster is up (sinfo: ${state ?? 'not available'}); .ci/run starts one with scripts/slurm-up.sh`,
    );
  });

  it.runIf(up)('runs the emitted sbatch array script; report gives the expected numbers', async () => {
    expect(existsSync(MAIN), 'dist/ is built (npm run build)').toBe(true);
    const root = mkdtempSync(join(tmpdir(), 'aorta-slurm-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const recipe = join(root, 'sweep.yaml');
    writeFileSync(
      recipe,
      `schema_version: 1
mode: probe
ticket: SLURM-E2E
trials: 2
mitigation_axis: [none, stable]
diagnostic_axis: [none]
mitigations:
  stable: {FLAKY_FORCE: pass}
`,
    );
    const out = join(root, 'runs');
    const script = join(root, 'sweep.sbatch');
    // FLAKY_SEED=3: trial 0 passes and trial 1 fails in the flaky cell (see fixtures/sweep/flaky.sh).
    const emitted = await cli([
      'sweep',
      '--recipe',
      recipe,
      '--out',
      out,
      '--gpu-tool',
      'none',
      '--emit',
      'slurm',
      '--emit-to',
      script,
      '--probe-command',
      `${process.execPath} ${MAIN}`,
      '--',
      'env',
      'FLAKY_SEED=3',
      'sh',
      FLAKY,
    ]);
    expect(emitted).toEqual({ code: 0, out: '', err: `aorta-probe sweep: wrote ${script} (4 tasks)\n` });

    const jobId = execFileSync('sbatch', ['--parsable', script], { encoding: 'utf8', cwd: root }).trim().split(';')[0]!;
    const deadline = Date.now() + 90_000;
    while (execFileSync('squeue', ['-h', '-j', jobId], { encoding: 'utf8' }).trim() !== '') {
      if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish in 90 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(readdirSync(join(out, 'slurm')).sort()).toEqual([0, 1, 2, 3].map((i) => `${jobId}_${i}.out`));

    const r = await cli(['report', out, '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { totals: object; problems: unknown[]; cells: Array<Record<string, unknown>> };
    expect(report.problems).toEqual([]);
    expect(report.totals).toEqual({ trials: 4, pass: 3, fail: 1, error: 0, flaky_cells: 1, unfinished: 0 });
    expect(report.cells.map((c) => [c.cell, c.trials, c.pass, c.fail, c.error, c.flaky])).toEqual([
      ['none-none', 2, 1, 1, 0, true],
      ['stable-none', 2, 2, 0, 0, false],
    ]);
    const text = await cli(['report', out]);
    console.log(`report of the Slurm run (job ${jobId}):\n${text.out}`);
  });
});
