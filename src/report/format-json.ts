/**
 * `report --format json`: the aggregated report (`SweepReport`) as a JSON document, on one line, with snake_case
 * keys like every other JSON output of the CLI (schemas/report.schema.json); `sweep --json` embeds the same object.
 * The library's `SweepReport` keeps JavaScript's camelCase; this is the one place that maps it. Strings are exact
 * (controls and all): JSON escapes them, and a parser wants the record's own bytes.
 */
import type {
  CellSummary,
  ConditionErrorCount,
  DetectorCount,
  Distribution,
  FlakyReason,
  SweepReport,
} from './aggregate.js';
import type { ReadProblem } from './read-results.js';
import type { MatrixJson } from '../matrix/types.js';

/** 2: the keys became snake_case (1 had the library's camelCase names). */
export const REPORT_JSON_VERSION = 2;

export interface CellJson {
  readonly cell: string;
  readonly trials: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  /** Trial directories without a result.json. */
  readonly unfinished: number;
  readonly flaky: boolean;
  readonly flaky_reasons: readonly FlakyReason[];
  readonly retried: number;
  readonly passed_on_retry: number;
  readonly retried_trials: readonly {
    readonly trial: number | null;
    readonly path: string;
    readonly verdict: string;
    readonly prior_attempts: readonly {
      readonly attempt: number;
      readonly verdict: string;
      readonly exit_code: number | null;
      readonly failure_detectors_fired: readonly string[];
      readonly error_detectors_fired: readonly string[];
      readonly retry_on: readonly string[];
      readonly dir: string | null;
    }[];
  }[];
  readonly detectors: readonly Omit<DetectorCount, 'kernelEvent'>[];
  readonly condition_errors: readonly ConditionErrorCount[];
  readonly walltime_sec: Distribution | null;
  readonly peak_vram_mib: Distribution | null;
}

export interface ReportJson {
  readonly report_version: number;
  readonly cells: readonly CellJson[];
  readonly totals: {
    readonly trials: number;
    readonly pass: number;
    readonly fail: number;
    readonly error: number;
    readonly flaky_cells: number;
    readonly unfinished: number;
  };
  readonly problems: readonly ReadProblem[];
  readonly earlier_attempts: number;
  readonly matrix: MatrixJson | null;
}

function cellJson(c: CellSummary): CellJson {
  return {
    cell: c.cell,
    trials: c.trials,
    pass: c.pass,
    fail: c.fail,
    error: c.error,
    unfinished: c.unfinished,
    flaky: c.flaky,
    flaky_reasons: c.flakyReasons,
    retried: c.retried,
    passed_on_retry: c.passedOnRetry,
    retried_trials: c.retriedTrials.map((r) => ({
      trial: r.trial,
      path: r.path,
      verdict: r.verdict,
      prior_attempts: r.prior.map((a) => ({
        attempt: a.attempt,
        verdict: a.verdict,
        exit_code: a.exitCode,
        failure_detectors_fired: a.failureDetectors,
        error_detectors_fired: a.errorDetectors,
        retry_on: a.retryOn,
        dir: a.dir,
      })),
    })),
    // The schema's detector entries (report.schema.json): the kernel event is shown by the human formats only.
    detectors: c.detectors.map((d) => ({ id: d.id, kind: d.kind, trials: d.trials, example: d.example })),
    condition_errors: c.conditionErrors,
    walltime_sec: c.walltimeSec,
    peak_vram_mib: c.peakVramMib,
  };
}

export function reportJson(report: SweepReport): ReportJson {
  const t = report.totals;
  return {
    report_version: REPORT_JSON_VERSION,
    cells: report.cells.map(cellJson),
    totals: {
      trials: t.trials,
      pass: t.pass,
      fail: t.fail,
      error: t.error,
      flaky_cells: t.flakyCells,
      unfinished: t.unfinished,
    },
    problems: report.problems,
    earlier_attempts: report.earlierAttempts,
    matrix: report.matrix,
  };
}

export function formatJson(report: SweepReport): string {
  return `${JSON.stringify(reportJson(report))}\n`;
}
