/**
 * `aggregateResults`: trial records → one summary per cell (verdict counts, flakiness, detectors by count with
 * an example log line, wall time and peak VRAM distributions). Every report format renders this one object.
 */
import type { Verdict } from '../trial/index.js';
import { findExampleLine, type ExampleLine } from './examples.js';
import type { ReadProblem, TrialRecord } from './read-results.js';

export interface Distribution {
  /** Values it was computed from (trials with a value). */
  readonly n: number;
  /** Python's `statistics.median` (the mean of the middle two for an even count). */
  readonly median: number;
  /** Nearest-rank 95th percentile: the ⌈0.95·n⌉-th smallest value. */
  readonly p95: number;
  readonly max: number;
}

export type DetectorKind = 'failure' | 'error' | 'warn';

export interface DetectorCount {
  readonly id: string;
  readonly kind: DetectorKind;
  /** Trials (final attempts) in which it fired. */
  readonly trials: number;
  /** The first matching line of the first trial it fired in (log-pattern detectors), else null. */
  readonly example: ExampleLine | null;
}

export type FlakyReason = 'mixed verdicts' | 'passed on retry';

export interface CellSummary {
  readonly cell: string;
  readonly trials: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  /** Mixed verdicts among the cell's trials, or a trial that passed only on a retry. */
  readonly flaky: boolean;
  readonly flakyReasons: readonly FlakyReason[];
  /** Trials that took more than one attempt, and those of them that passed. */
  readonly retried: number;
  readonly passedOnRetry: number;
  /** Most frequent first; ties by id. */
  readonly detectors: readonly DetectorCount[];
  readonly walltimeSec: Distribution | null;
  /** Null when no trial had a VRAM sample. */
  readonly peakVramMib: Distribution | null;
}

export interface SweepReport {
  /** Cells by name. */
  readonly cells: readonly CellSummary[];
  readonly totals: {
    readonly trials: number;
    readonly pass: number;
    readonly fail: number;
    readonly error: number;
    readonly flakyCells: number;
  };
  /** Files that were not usable records. */
  readonly problems: readonly ReadProblem[];
  readonly earlierAttempts: number;
}

export interface AggregateOptions {
  /** Look up example log lines (reads the logs); default true. */
  readonly examples?: boolean;
  readonly problems?: readonly ReadProblem[];
  readonly earlierAttempts?: number;
}

export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
  return { n, median, p95: s[Math.ceil(0.95 * n) - 1]!, max: s[n - 1]! };
}

const KINDS: ReadonlyArray<[DetectorKind, (r: TrialRecord) => readonly string[]]> = [
  ['failure', (r) => r.failureDetectors],
  ['error', (r) => r.errorDetectors],
  ['warn', (r) => r.warnDetectors],
];

export async function aggregateResults(
  records: readonly TrialRecord[],
  options: AggregateOptions = {},
): Promise<SweepReport> {
  const byCell = new Map<string, TrialRecord[]>();
  for (const r of records) {
    const list = byCell.get(r.cell) ?? [];
    list.push(r);
    byCell.set(r.cell, list);
  }
  const cells: CellSummary[] = [];
  for (const name of [...byCell.keys()].sort()) {
    // Trial order within a cell, so "the first trial it fired in" does not depend on file-system order.
    const rs = byCell
      .get(name)!
      .sort((a, b) => (a.trial ?? Infinity) - (b.trial ?? Infinity) || (a.path < b.path ? -1 : 1));
    const count = (v: Verdict): number => rs.filter((r) => r.verdict === v).length;
    const verdicts = new Set(rs.map((r) => r.verdict));
    const passedOnRetry = rs.filter((r) => r.passedOnRetry).length;
    const reasons: FlakyReason[] = [];
    if (verdicts.size > 1) reasons.push('mixed verdicts');
    if (passedOnRetry > 0) reasons.push('passed on retry');

    const detectors = new Map<string, { kind: DetectorKind; trials: number; first: TrialRecord }>();
    for (const r of rs) {
      for (const [kind, ids] of KINDS) {
        for (const id of new Set(ids(r))) {
          const d = detectors.get(id);
          if (d === undefined) detectors.set(id, { kind, trials: 1, first: r });
          else d.trials++;
        }
      }
    }
    const counted: DetectorCount[] = [];
    for (const [id, d] of detectors) {
      const example = options.examples === false ? null : await findExampleLine(d.first, id);
      counted.push({ id, kind: d.kind, trials: d.trials, example });
    }
    counted.sort((a, b) => b.trials - a.trials || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    cells.push({
      cell: name,
      trials: rs.length,
      pass: count('pass'),
      fail: count('fail'),
      error: count('error'),
      flaky: reasons.length > 0,
      flakyReasons: reasons,
      retried: rs.filter((r) => r.attempts > 1).length,
      passedOnRetry,
      detectors: counted,
      walltimeSec: distribution(rs.map((r) => r.walltimeSec)),
      peakVramMib: distribution(rs.flatMap((r) => (r.peakVramMib === null ? [] : [r.peakVramMib]))),
    });
  }
  const sum = (f: (c: CellSummary) => number): number => cells.reduce((a, c) => a + f(c), 0);
  return {
    cells,
    totals: {
      trials: sum((c) => c.trials),
      pass: sum((c) => c.pass),
      fail: sum((c) => c.fail),
      error: sum((c) => c.error),
      flakyCells: cells.filter((c) => c.flaky).length,
    },
    problems: options.problems ?? [],
    earlierAttempts: options.earlierAttempts ?? 0,
  };
}
