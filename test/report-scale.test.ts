/**
 * `report` at sizes a long sweep or a forged record reaches (issue 33 §6): no format spreads an unbounded array
 * into a call or recurses over one, so hundreds of thousands of records, or a million detector ids in one cell,
 * report instead of throwing "Maximum call stack size exceeded".
 */
import { describe, expect, it } from 'vitest';
import { githubAnnotations, type Annotation } from '../src/report/github.js';
import { aggregateResults, distribution, formatReport, REPORT_FORMATS, type TrialRecord } from '../src/report/index.js';

function record(
  cell: string,
  trial: number,
  walltimeSec: number,
  failureDetectors: readonly string[] = [],
): TrialRecord {
  return {
    path: `runs/T/${cell}/trial_${trial}/result.json`,
    cell,
    trial,
    verdict: failureDetectors.length > 0 ? 'fail' : 'pass',
    exitCode: failureDetectors.length > 0 ? 1 : 0,
    walltimeSec,
    peakVramMib: trial % 7,
    failureDetectors,
    errorDetectors: [],
    warnDetectors: [],
    attempts: 1,
    passedOnRetry: false,
    logPath: null,
    recipeFile: null,
    recipeSha256: null,
  };
}

describe('report at scale', () => {
  it('160,000 records in four cells: every format', { timeout: 60_000 }, async () => {
    const records: TrialRecord[] = [];
    for (let i = 0; i < 160_000; i++)
      records.push(record(`c${i % 4}`, i, (i % 999) / 100, i % 5 === 0 ? ['tier1:exit_nonzero'] : []));
    const report = await aggregateResults(records, { examples: false });
    const out = new Map(REPORT_FORMATS.map((f) => [f, formatReport(f, report, records)]));
    expect(report.totals).toEqual({
      trials: 160_000,
      pass: 128_000,
      fail: 32_000,
      error: 0,
      flakyCells: 4,
      unfinished: 0,
    });
    expect(report.cells.map((c) => [c.cell, c.trials, c.walltimeSec?.max])).toEqual([
      ['c0', 40_000, 9.98],
      ['c1', 40_000, 9.98],
      ['c2', 40_000, 9.98],
      ['c3', 40_000, 9.98],
    ]);
    // The wall-time axis ends at the slowest trial, found without spreading 160,000 values into Math.max.
    expect(out.get('html')).toContain(
      '<text x="200" y="116" text-anchor="middle">0.000 s</text><text x="320" y="116" text-anchor="middle">2.495 s</text>',
    );
    expect(out.get('junit')!.split('<testcase ').length - 1).toBe(160_000);
    expect(out.get('text')!.split('\n')[0]).toBe(
      '160000 trials in 4 cells: pass 128000, fail 32000, error 0; 4 flaky cells',
    );
  });

  it('one cell with 1,000,000 detector ids', { timeout: 60_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < 1_000_000; i++) ids.push(`tier1:x${i}`);
    const records = [record('wide', 0, 1, ids), record('wide', 1, 2, ids.slice(0, 12))];
    const report = await aggregateResults(records);
    const d = report.cells[0]!.detectors;
    expect([d.length, d[0], d[12]!.trials]).toEqual([
      1_000_000,
      { id: 'tier1:x0', kind: 'failure', trials: 2, example: null },
      1,
    ]);
    const text = formatReport('text', report, records);
    expect(text.split('\n').slice(0, 8)).toEqual([
      '2 trials in 1 cell: pass 0, fail 2, error 0; 0 flaky cells',
      '',
      'cell wide: 2 trials: pass 0, fail 2, error 0; not flaky',
      '  walltime: median 1.500 s, p95 2.000 s, max 2.000 s (n=2)',
      '  peak VRAM: median 0.5 MiB, p95 1 MiB, max 1 MiB (n=2)',
      '  detectors (trials fired in):',
      '    2  tier1:x0 (failure)',
      '    2  tier1:x1 (failure)',
    ]);
    expect(formatReport('json', report, records).length).toBeGreaterThan(50_000_000);
    const values: number[] = [];
    for (let i = 1_000_000; i > 0; i--) values.push(i);
    expect(distribution(values)).toEqual({ n: 1_000_000, median: 500_000.5, p95: 950_000, max: 1_000_000 });
  });

  it('GitHub annotations: 200,000 of one level in linear time', () => {
    const many: Annotation[] = [];
    for (let i = 0; i < 200_000; i++) many.push({ level: 'warning', file: `f${i}.log`, title: 'slow', message: 'm' });
    const out = githubAnnotations(many).split('\n');
    expect(out.length).toBe(11);
    expect(out[9]!.startsWith('::warning title=199991 more warning annotations::f9.log: slow%0Af10.log: slow')).toBe(
      true,
    );
  });
});
