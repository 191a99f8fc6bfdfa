import { describe, expect, it } from 'vitest';
import { buildMatrix, type MatrixInput, type MatrixTrial } from '../src/matrix/index.js';
import type { Verdict } from '../src/detectors/verdict.js';

const cell = (name: string, m: string, d = 'none') => ({ name, mitigations: [m, d] as const, env: {} });

function trials(
  name: string,
  n: number,
  verdictOf: (i: number) => Verdict,
  wall: number,
  extra: Partial<MatrixTrial> = {},
): MatrixTrial[] {
  return Array.from({ length: n }, (_, i) => ({
    cell: name,
    trial: i,
    verdict: verdictOf(i),
    walltimeSec: wall,
    failureDetectors: verdictOf(i) === 'fail' ? ['custom:nan_loss'] : [],
    warnDetectors: [],
    resumed: false,
    ...extra,
  }));
}

function input(over: Partial<MatrixInput>): MatrixInput {
  return {
    ticket: 'T-1',
    runId: '0'.repeat(32),
    argv: ['./train.sh'],
    trialsPerCell: 30,
    stopAfter: null,
    confound: { threshold: 1.15, baselineCell: null },
    recipeSource: { path: 'r.yaml', sha256: 'ab'.repeat(32) },
    version: '0.1.0',
    complete: true,
    writtenAt: new Date('2026-12-05T12:00:00.000Z'),
    cells: [],
    trials: [],
    stoppedCells: new Set(),
    ...over,
  };
}

// The issue's sweep: a baseline failing 40%, a mitigation failing ~7%, one failing 40% but 1.3x slower.
const flaky = (i: number): Verdict => (i % 5 === 0 || i % 5 === 2 ? 'fail' : 'pass');
const issueSweep = input({
  cells: [
    cell('none-none', 'none'),
    cell('tf32_off-none', 'tf32_off'),
    cell('slow-none', 'slow'),
    cell('ghost-none', 'ghost'),
    cell('broken-none', 'broken'),
  ],
  trials: [
    ...trials('none-none', 30, flaky, 1.0),
    ...trials('tf32_off-none', 30, (i) => (i === 7 || i === 21 ? 'fail' : 'pass'), 1.02),
    ...trials('slow-none', 30, flaky, 1.3),
    ...trials('broken-none', 3, () => 'error', 0.5),
  ],
});

describe('buildMatrix: the original rules', () => {
  const m = buildMatrix(issueSweep);
  const byName = new Map(m.cells.map((c) => [c.name, c]));

  it('resolves the all-none cell as the baseline and tags every cell', () => {
    expect(m.baseline_cell).toBe('none-none');
    expect(m.warnings).toEqual([]);
    expect(m.cells.map((c) => [c.name, c.confound, c.step_time_ratio])).toEqual([
      ['none-none', '(baseline)', 1],
      ['tf32_off-none', '-', 1.02],
      ['slow-none', 'speed (+30%)', 1.3],
      ['ghost-none', 'did_not_run', null],
      ['broken-none', 'error', null],
    ]);
  });

  it('counts rates with errors excluded, and flags unreliable cells', () => {
    const base = byName.get('none-none')!;
    expect([base.trials, base.passed_count, base.failed_count, base.error_count, base.failure_rate]).toEqual([
      30, 18, 12, 0, 0.4,
    ]);
    expect(base.mean_wall_clock_sec).toBe(1);
    expect(base.mean_step_time_ms).toBe(1000);
    expect(base.top_failure_detector_id).toBe('custom:nan_loss');
    expect(base.trial_paths[0]).toBe('none-none/trial_0/result.json');
    expect(base.directory).toBe('none-none/');
    const broken = byName.get('broken-none')!;
    expect([broken.failure_rate, broken.error_rate, broken.is_unreliable, broken.not_run_count]).toEqual([
      null,
      1,
      true,
      27,
    ]);
    const ghost = byName.get('ghost-none')!;
    expect([ghost.trials, ghost.step_time_source, ghost.mean_wall_clock_sec, ghost.vs_baseline]).toEqual([
      0,
      'missing',
      null,
      null,
    ]);
  });

  it('says whether the difference from the baseline is real (SciPy/statsmodels values)', () => {
    const helps = byName.get('tf32_off-none')!.vs_baseline!;
    expect(helps.effect).toBe('helps');
    expect(helps.difference).toBeCloseTo(2 / 30 - 0.4, 12);
    // scipy.stats.fisher_exact([[2, 28], [12, 18]]); statsmodels confint_proportions_2indep(2, 30, 12, 30, 'newcomb')
    expect(helps.p_value).toBeCloseTo(0.004769170151985977, 9);
    expect(helps.ci95![0]).toBeCloseTo(-0.516579637082381, 9);
    expect(helps.ci95![1]).toBeCloseTo(-0.12066686097504786, 9);
    expect(helps.trials_needed).toBeNull();
    const same = byName.get('slow-none')!.vs_baseline!;
    expect([same.effect, same.difference, same.p_value, same.trials_needed]).toEqual(['no evidence', 0, 1, null]);
    expect(same.ci95![1]).toBeCloseTo(0.23452471157790553, 9);
    expect(byName.get('none-none')!.vs_baseline).toBeNull();
  });
});

describe('buildMatrix: baseline resolution', () => {
  const two = [cell('tf32_off-none', 'tf32_off'), cell('xnack-none', 'xnack')];
  const ran = [...trials('tf32_off-none', 2, () => 'pass', 1), ...trials('xnack-none', 2, () => 'fail', 1)];

  it('takes the configured baseline_cell first', () => {
    const m = buildMatrix(
      input({ cells: two, trials: ran, confound: { threshold: 1.15, baselineCell: 'xnack-none' } }),
    );
    expect(m.baseline_cell).toBe('xnack-none');
    expect(m.confound).toEqual({ threshold: 1.15, baseline_cell_configured: 'xnack-none' });
    expect(m.cells.map((c) => c.confound)).toEqual(['-', '(baseline)']);
  });

  it("takes the first 'baseline-*' cell before an all-none one", () => {
    const cells = [cell('none-none', 'none'), cell('baseline-a', 'x')];
    const m = buildMatrix(
      input({
        cells,
        trials: [...trials('none-none', 1, () => 'pass', 1), ...trials('baseline-a', 1, () => 'pass', 1)],
      }),
    );
    expect(m.baseline_cell).toBe('baseline-a');
  });

  it('skips cells that did not run, and takes the only cell that ran', () => {
    const m = buildMatrix(input({ cells: [cell('none-none', 'none'), ...two], trials: ran.slice(0, 2) }));
    expect(m.baseline_cell).toBe('tf32_off-none');
  });

  it('warns and tags n/a when no baseline can be resolved', () => {
    const m = buildMatrix(input({ cells: two, trials: ran }));
    expect(m.baseline_cell).toBeNull();
    expect(m.warnings).toEqual([
      "cannot resolve baseline cell: no cell that ran is named 'baseline-*' or has only 'none' mitigations; set confound.baseline_cell in the recipe. Every confound is n/a",
    ]);
    expect(m.cells.map((c) => [c.confound, c.vs_baseline])).toEqual([
      ['n/a', null],
      ['n/a', null],
    ]);
  });

  it('a configured baseline that did not run: a warning, every confound n/a', () => {
    const m = buildMatrix(
      input({
        cells: [cell('none-none', 'none'), ...two],
        trials: ran,
        confound: { threshold: 1.15, baselineCell: 'none-none' },
      }),
    );
    expect(m.warnings).toEqual(["configured baseline cell 'none-none' did not run; every confound is n/a"]);
    expect(m.cells.map((c) => c.confound)).toEqual(['did_not_run', 'n/a', 'n/a']);
  });
});

describe('buildMatrix: details', () => {
  it('rounds the speed tag half to even, as Python round()', () => {
    // ratio 1.125: (1.125 - 1) * 100 is exactly 12.5 → 12 (half to even); 1.165 gives 16.500000000000004 → 17.
    const cells = [cell('none-none', 'none'), cell('a-none', 'a'), cell('b-none', 'b')];
    const m = buildMatrix(
      input({
        cells,
        trials: [
          ...trials('none-none', 1, () => 'fail', 2),
          ...trials('a-none', 1, () => 'pass', 2.25),
          ...trials('b-none', 1, () => 'fail', 2.33),
        ],
        confound: { threshold: 1.1, baselineCell: null },
      }),
    );
    expect(m.cells.map((c) => c.confound)).toEqual(['(baseline)', 'speed (+12%)', 'speed (+17%)']);
  });

  it('marks errors at 10% of the trials unreliable, not below', () => {
    const cells = [cell('none-none', 'none'), cell('a-none', 'a')];
    const m = buildMatrix(
      input({
        cells,
        trials: [
          ...trials('none-none', 30, (i) => (i < 3 ? 'error' : 'pass'), 1),
          ...trials('a-none', 30, (i) => (i < 2 ? 'error' : 'pass'), 1),
        ],
      }),
    );
    expect(m.cells.map((c) => c.is_unreliable)).toEqual([true, false]);
  });

  it("writes the original's stop_after notes", () => {
    const cells = [cell('none-none', 'none'), cell('a-none', 'a'), cell('b-none', 'b')];
    const m = buildMatrix(
      input({
        cells,
        trialsPerCell: 8,
        stopAfter: { events: 3, maxTrials: 8, eventVerdict: 'fail' },
        stoppedCells: new Set(['none-none']),
        trials: [
          ...trials('none-none', 5, (i) => (i % 2 === 0 ? 'fail' : 'pass'), 1),
          ...trials('a-none', 8, () => 'pass', 1),
          ...trials('b-none', 2, () => 'pass', 1),
        ],
      }),
    );
    expect(m.stop_after).toEqual({ events: 3, max_trials: 8, event_verdict: 'fail' });
    expect(m.cells.map((c) => c.stop_after_note)).toEqual([
      'stopped early: 3 fail event(s) in 5 trial(s)',
      'cap reached: 0 fail event(s) in 8 trial(s)',
      null,
    ]);
  });

  it('picks the detector that fired in most trials, ties to the first seen; resumed only when every trial was', () => {
    const cells = [cell('none-none', 'none')];
    const t: MatrixTrial[] = [
      {
        cell: 'none-none',
        trial: 1,
        verdict: 'fail',
        walltimeSec: 1,
        failureDetectors: ['b', 'b'],
        warnDetectors: ['w'],
        resumed: true,
      },
      {
        cell: 'none-none',
        trial: 0,
        verdict: 'fail',
        walltimeSec: 1,
        failureDetectors: ['a'],
        warnDetectors: [],
        resumed: true,
      },
    ];
    const m = buildMatrix(input({ cells, trials: t }));
    expect(m.cells[0]!.top_failure_detector_id).toBe('a');
    expect(m.cells[0]!.top_warn_detector_id).toBe('w');
    expect(m.cells[0]!.resumed).toBe(true);
    expect(m.cells[0]!.trial_paths).toEqual(['none-none/trial_0/result.json', 'none-none/trial_1/result.json']);
  });
});
