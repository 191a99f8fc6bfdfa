/**
 * `aggregateResults`: trial records → one summary per cell (verdict counts, flakiness, unfinished trials, detectors
 * by count with an example log line, wall time and peak VRAM distributions). Every report format renders this one
 * object. Loops only: a sweep's records, or one record's detector ids, may number in the millions, more than a
 * spread into a call (`Math.max(...xs)`) or a recursion can take.
 */
import type { Verdict } from '../detectors/verdict.js';
import type { MatrixJson } from '../matrix/types.js';
import { conditionRaisedText } from '../scan/scan.js';
import { inertLine } from '../text/inert.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';
import { findExampleLines, type ExampleLine } from './examples.js';
import type { ShownKernelEvent } from './kernel-events.js';
import type { PriorAttempt, ReadProblem, TrialRecord, UnfinishedTrial } from './records.js';

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
  /**
   * A Tier 3 kernel detector: the first event of it recorded by the first trial it fired in (its kernel line, the
   * Xid and its name when present). Absent for other detectors and when that trial recorded no such event.
   */
  readonly kernelEvent?: ShownKernelEvent;
}

/** A pattern whose condition raised in some of a cell's trials: summed over them. */
export interface ConditionErrorCount {
  readonly pattern: string;
  /** The first exception's class in the first trial it raised in. */
  readonly error: string;
  /** Trials (final attempts) in which it raised. */
  readonly trials: number;
  /** Matches whose condition raised, of those evaluated, over those trials. */
  readonly raised: number;
  readonly evaluated: number;
}

export type FlakyReason = 'mixed verdicts' | 'passed on retry';

/** A trial that took more than one attempt: its final verdict and the attempts before it. */
export interface RetriedTrial {
  readonly trial: number | null;
  /** The final record's path. */
  readonly path: string;
  readonly verdict: Verdict;
  readonly prior: readonly PriorAttempt[];
}

/** `attempt 1: fail (tier1:timeout), retried on tier1:timeout`: one earlier attempt, as every format words it. */
export function priorAttemptText(a: PriorAttempt): string {
  const fired = [...a.failureDetectors, ...a.errorDetectors];
  return inertLine(
    `attempt ${a.attempt}: ${a.verdict}${fired.length > 0 ? ` (${fired.join(', ')})` : ''}${a.retryOn.length > 0 ? `, retried on ${a.retryOn.join(', ')}` : ''}`,
  );
}

export interface CellSummary {
  readonly cell: string;
  /** Finished trials: records read. */
  readonly trials: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  /** Trial directories without a result.json (interrupted, still running, or lost their record). */
  readonly unfinished: number;
  /** Mixed verdicts among the cell's trials, or a trial that passed only on a retry. */
  readonly flaky: boolean;
  readonly flakyReasons: readonly FlakyReason[];
  /** Trials that took more than one attempt, and those of them that passed. */
  readonly retried: number;
  readonly passedOnRetry: number;
  /** Each retried trial with what every earlier attempt ended with and fired (in trial order). */
  readonly retriedTrials: readonly RetriedTrial[];
  /** Most frequent first; ties by id. */
  readonly detectors: readonly DetectorCount[];
  /** Conditions that raised (a raise never fires: a pattern may have missed what it looks for), by pattern id. */
  readonly conditionErrors: readonly ConditionErrorCount[];
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
    readonly unfinished: number;
  };
  /** Files that were not usable records. */
  readonly problems: readonly ReadProblem[];
  readonly earlierAttempts: number;
  /** The unfinished trial directories counted in the cells, in path order. */
  readonly unfinished: readonly UnfinishedTrial[];
  /** The sweep's matrix (its run directory's matrix.json), shown first by every format; null without one. */
  readonly matrix: MatrixJson | null;
}

export interface AggregateOptions {
  /** Look up example log lines (reads the logs); default true. */
  readonly examples?: boolean;
  readonly problems?: readonly ReadProblem[];
  readonly earlierAttempts?: number;
  /** `readResults`'s `unfinished`: counted per cell; a cell with only unfinished trials is listed too. */
  readonly unfinished?: readonly UnfinishedTrial[];
  readonly matrix?: MatrixJson | null;
}

/** `aggregateResults`' option keys (text/options.ts). */
export const AGGREGATE_OPTION_KEYS = {
  examples: OPTION,
  problems: OPTION,
  earlierAttempts: OPTION,
  unfinished: OPTION,
  matrix: OPTION,
} satisfies OptionTable<AggregateOptions>;

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const s = Float64Array.from(values).sort();
  const n = s.length;
  const median = n % 2 === 1 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
  return { n, median, p95: s[Math.ceil(0.95 * n) - 1]!, max: s[n - 1]! };
}

const KINDS: ReadonlyArray<[DetectorKind, (r: TrialRecord) => readonly string[]]> = [
  ['failure', (r) => r.failureDetectors],
  ['error', (r) => r.errorDetectors],
  ['warn', (r) => r.warnDetectors],
];

interface Tally {
  readonly kind: DetectorKind;
  trials: number;
  readonly first: TrialRecord;
  /** The last trial counted, so an id listed twice in one trial counts once. */
  last: TrialRecord;
}

/** Detectors of a cell by the trials they fired in, each with its example from the first trial it fired in. */
function countDetectors(rs: readonly TrialRecord[], examples: boolean): DetectorCount[] {
  const tallies = new Map<string, Tally>();
  for (const r of rs) {
    for (const [kind, ids] of KINDS) {
      for (const id of ids(r)) {
        const t = tallies.get(id);
        if (t === undefined) tallies.set(id, { kind, trials: 1, first: r, last: r });
        else if (t.last !== r) {
          t.trials++;
          t.last = r;
        }
      }
    }
  }
  // Each trial's log is read once for all the detectors whose example it holds.
  const byFirst = new Map<TrialRecord, string[]>();
  if (examples) {
    for (const [id, t] of tallies) {
      const ids = byFirst.get(t.first);
      if (ids === undefined) byFirst.set(t.first, [id]);
      else ids.push(id);
    }
  }
  const found = new Map<string, ExampleLine>();
  for (const [r, ids] of byFirst) for (const [id, ex] of findExampleLines(r, ids)) found.set(id, ex);
  const counted: DetectorCount[] = [];
  for (const [id, t] of tallies) {
    const kernelEvent = t.first.kernelEvents?.find((e) => e.detector === id);
    counted.push({
      id,
      kind: t.kind,
      trials: t.trials,
      example: found.get(id) ?? null,
      ...(kernelEvent === undefined ? {} : { kernelEvent }),
    });
  }
  return counted.sort((a, b) => b.trials - a.trials || compareStrings(a.id, b.id));
}

/**
 * `custom:slow_step: condition raised ValueError on 8 of 8 matches in 2 trials` (inert: ids and class names come
 * from records), the line every report format shows for it.
 */
export function conditionErrorsText(e: ConditionErrorCount): string {
  return inertLine(`${conditionRaisedText(e)} in ${e.trials} trial${e.trials === 1 ? '' : 's'}`);
}

function countConditionErrors(rs: readonly TrialRecord[]): ConditionErrorCount[] {
  const by = new Map<string, { error: string; trials: number; raised: number; evaluated: number }>();
  for (const r of rs) {
    for (const e of r.conditionErrors ?? []) {
      const t = by.get(e.pattern);
      if (t === undefined) by.set(e.pattern, { error: e.error, trials: 1, raised: e.raised, evaluated: e.evaluated });
      else {
        t.trials++;
        t.raised += e.raised;
        t.evaluated += e.evaluated;
      }
    }
  }
  return [...by].map(([pattern, t]) => ({ pattern, ...t })).sort((a, b) => compareStrings(a.pattern, b.pattern));
}

function summarise(cell: string, rs: TrialRecord[], unfinished: number, examples: boolean): CellSummary {
  // Trial order within a cell, so "the first trial it fired in" does not depend on file-system order.
  rs.sort((a, b) => (a.trial ?? Infinity) - (b.trial ?? Infinity) || compareStrings(a.path, b.path));
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, error: 0 };
  let retried = 0;
  let passedOnRetry = 0;
  const retriedTrials: RetriedTrial[] = [];
  const walltimes: number[] = [];
  const vrams: number[] = [];
  for (const r of rs) {
    counts[r.verdict]++;
    if (r.attempts > 1) retried++;
    if (r.priorAttempts !== undefined)
      retriedTrials.push({ trial: r.trial, path: r.path, verdict: r.verdict, prior: r.priorAttempts });
    if (r.passedOnRetry) passedOnRetry++;
    walltimes.push(r.walltimeSec);
    if (r.peakVramMib !== null) vrams.push(r.peakVramMib);
  }
  const reasons: FlakyReason[] = [];
  if ((counts.pass > 0 ? 1 : 0) + (counts.fail > 0 ? 1 : 0) + (counts.error > 0 ? 1 : 0) > 1)
    reasons.push('mixed verdicts');
  if (passedOnRetry > 0) reasons.push('passed on retry');
  return {
    cell,
    trials: rs.length,
    pass: counts.pass,
    fail: counts.fail,
    error: counts.error,
    unfinished,
    flaky: reasons.length > 0,
    flakyReasons: reasons,
    retried,
    passedOnRetry,
    retriedTrials,
    detectors: countDetectors(rs, examples),
    conditionErrors: countConditionErrors(rs),
    walltimeSec: distribution(walltimes),
    peakVramMib: distribution(vrams),
  };
}

export async function aggregateResults(
  records: readonly TrialRecord[],
  options: AggregateOptions = {},
): Promise<SweepReport> {
  checkOptions('aggregateResults', options, AGGREGATE_OPTION_KEYS);
  const byCell = new Map<string, TrialRecord[]>();
  const unfinishedByCell = new Map<string, number>();
  for (const r of records) {
    const list = byCell.get(r.cell);
    if (list === undefined) byCell.set(r.cell, [r]);
    else list.push(r);
  }
  const unfinished = options.unfinished ?? [];
  for (const u of unfinished) {
    unfinishedByCell.set(u.cell, (unfinishedByCell.get(u.cell) ?? 0) + 1);
    if (!byCell.has(u.cell)) byCell.set(u.cell, []);
  }
  const names = Array.from(byCell.keys()).sort(compareStrings);
  const cells: CellSummary[] = [];
  const totals = { trials: 0, pass: 0, fail: 0, error: 0, flakyCells: 0, unfinished: 0 };
  for (const name of names) {
    const c = summarise(name, byCell.get(name)!, unfinishedByCell.get(name) ?? 0, options.examples !== false);
    cells.push(c);
    totals.trials += c.trials;
    totals.pass += c.pass;
    totals.fail += c.fail;
    totals.error += c.error;
    totals.unfinished += c.unfinished;
    if (c.flaky) totals.flakyCells++;
  }
  return {
    cells,
    totals,
    problems: options.problems ?? [],
    earlierAttempts: options.earlierAttempts ?? 0,
    unfinished,
    matrix: options.matrix ?? null,
  };
}
