/**
 * A sweep run as cluster tasks (`sweep --task N`, one trial each, as a Slurm array runs it) writes no matrix.json:
 * `report RUN_DIR` computes the matrix from the run's records by the same rules, and says so.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPUTED_MATRIX_WARNING } from '../src/report/records-matrix.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-cluster-matrix-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('report of a run whose trials ran as cluster tasks', { timeout: 60_000 }, () => {
  it('computes the matrix from the records: same cells, counts and comparison', async () => {
    const out = join(root, 'runs');
    const saved = process.env.STEP_SEC;
    process.env.STEP_SEC = '0.01';
    try {
      for (let task = 0; task < 6; task++) {
        const r = await cliInProcess([
          'sweep',
          '--recipe',
          'fixtures/matrix/recipe.yaml',
          '--out',
          out,
          '--trials',
          '2',
          '--task',
          String(task),
          '--quiet',
          '--',
          'fixtures/matrix/flaky-trainer.sh',
        ]);
        expect(r.err).toBe('');
      }
    } finally {
      if (saved === undefined) delete process.env.STEP_SEC;
      else process.env.STEP_SEC = saved;
    }
    const run = join(out, 'MATRIX-1');
    expect(existsSync(join(run, 'matrix.json'))).toBe(false);
    const r = await cliInProcess(['report', '--json', run]);
    const m = (JSON.parse(r.out) as { matrix: Record<string, unknown> & { cells: Record<string, unknown>[] } }).matrix;
    expect(m.warnings).toEqual([COMPUTED_MATRIX_WARNING]);
    expect([m.ticket, m.trials_per_cell, m.complete, m.baseline_cell]).toEqual(['MATRIX-1', 2, true, 'none-none']);
    expect(m.cells.map((c) => [c.name, c.mitigations, c.trials, c.failed_count, c.resolved_env_vars])).toEqual([
      ['none-none', ['none', 'none'], 2, 1, {}],
      ['fix-none', ['fix', 'none'], 2, 0, { FIX: '1' }],
      ['slow-none', ['slow', 'none'], 2, 1, { SLOW: '1' }],
    ]);
    expect(m.cells[1]!.vs_baseline).toMatchObject({ effect: 'no evidence', p_value: 1, trials_needed: 7 });
    const text = await cliInProcess(['report', run]);
    expect(text.out.split('\n').slice(0, 2)).toEqual([
      'matrix: baseline none-none, 2 trial(s) per cell, complete',
      `  warning: ${COMPUTED_MATRIX_WARNING}`,
    ]);
  });
});
