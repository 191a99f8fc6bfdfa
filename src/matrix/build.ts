/**
 * `buildMatrix`: a sweep's finished trials → `matrix.json` (types.ts), by the original's rules (ROCm/aorta
 * `triage/matrix.py`, `triage/confound.py`; ../shared/spec/upstream-probe-runs.md §3.8):
 *
 * - failure rate `fail / (pass + fail)`: error trials are excluded (its issue #230); unreliable when errors are at
 *   least 10% of the trials;
 * - the baseline: the configured `confound.baseline_cell`; else the first cell named `baseline-*`; else the first
 *   whose mitigations are all `none`; else the only one. Cells with no finished trial are never picked;
 * - the confound tag, checked in the original's order: `error`, `did_not_run`, `(baseline)`, `n/a`, then
 *   `speed (+N%)` when the cell's mean wall-clock per trial exceeds the baseline's by more than the threshold
 *   (N by Python's round-half-even), `no effect` when its failure rate is not lower, else `-`.
 *
 * Ours on top: `vs_baseline`, the difference from the baseline's rate with its interval, p-value and a plain word
 * (stats.ts). Two deliberate readings where the original has a cell-level exception we do not: a cell whose every
 * finished trial erred (no rate to compare) is `error`; one with no finished trial is `did_not_run`.
 *
 * Pure: the same trials give the same matrix, whether the sweep is still running (a partial matrix) or reading
 * back a finished run.
 */
import type { Verdict } from '../detectors/verdict.js';
import { compareToBaseline, roundHalfEven } from './stats.js';
import {
  MATRIX_SCHEMA_VERSION,
  UNRELIABLE_ERROR_RATE,
  type ConfoundTag,
  type MatrixCell,
  type MatrixJson,
  type VsBaseline,
} from './types.js';

/** One finished trial (its final attempt) as the matrix counts it. */
export interface MatrixTrial {
  readonly cell: string;
  readonly trial: number;
  readonly verdict: Verdict;
  readonly walltimeSec: number;
  readonly failureDetectors: readonly string[];
  readonly warnDetectors: readonly string[];
  /** Kept from an earlier invocation of the run. */
  readonly resumed: boolean;
}

export interface MatrixPlanCell {
  readonly name: string;
  readonly mitigations: readonly [string, string];
  readonly env: Readonly<Record<string, string>>;
}

export interface MatrixInput {
  readonly ticket: string;
  readonly runId: string;
  readonly argv: readonly string[];
  readonly trialsPerCell: number;
  readonly stopAfter: { readonly events: number; readonly maxTrials: number; readonly eventVerdict: Verdict } | null;
  readonly confound: { readonly threshold: number; readonly baselineCell: string | null };
  readonly recipeSource: { readonly path: string; readonly sha256: string };
  readonly version: string;
  /** Every planned trial has finished or was stopped by `stop_after`, and the sweep was not interrupted. */
  readonly complete: boolean;
  readonly writtenAt: Date;
  /** In plan order. */
  readonly cells: readonly MatrixPlanCell[];
  /** Finished trials, any order; interrupted trials are not finished. */
  readonly trials: readonly MatrixTrial[];
  /** Cells that met `stop_after.events`. */
  readonly stoppedCells: ReadonlySet<string>;
}

interface Counted {
  readonly plan: MatrixPlanCell;
  readonly trials: readonly MatrixTrial[];
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  readonly failureRate: number | null;
  readonly meanWallSec: number | null;
  readonly meanStepMs: number | null;
}

export function buildMatrix(input: MatrixInput): MatrixJson {
  const byCell = new Map<string, MatrixTrial[]>(input.cells.map((c) => [c.name, []]));
  for (const t of input.trials) byCell.get(t.cell)?.push(t);
  const counted: Counted[] = input.cells.map((plan) => count(plan, byCell.get(plan.name)!));

  const warnings: string[] = [];
  const baseline = resolveBaseline(counted, input, warnings);
  const usable =
    baseline !== null && baseline.failureRate !== null && baseline.meanStepMs !== null && baseline.meanStepMs > 0;

  const cells = counted.map((c): MatrixCell => {
    const { tag, ratio } = confoundOf(c, baseline, usable, input.confound.threshold);
    const vs: VsBaseline | null =
      baseline === null || c === baseline || baseline.trials.length === 0 || c.trials.length === 0
        ? null
        : compareToBaseline(
            { failed: c.fail, n: c.pass + c.fail },
            { failed: baseline.fail, n: baseline.pass + baseline.fail },
          );
    const n = c.trials.length;
    return {
      name: c.plan.name,
      mitigations: c.plan.mitigations,
      resolved_env_vars: c.plan.env,
      trials: n,
      passed_count: c.pass,
      failed_count: c.fail,
      error_count: c.error,
      not_run_count: Math.max(0, input.trialsPerCell - n),
      failure_rate: c.failureRate,
      error_rate: n === 0 ? null : c.error / n,
      is_unreliable: c.error > 0 && c.error / n >= UNRELIABLE_ERROR_RATE,
      mean_wall_clock_sec: c.meanWallSec,
      mean_step_time_ms: c.meanStepMs,
      step_time_source: n === 0 ? 'missing' : 'wall_clock_total',
      top_failure_detector_id: mostFrequent(c.trials, (t) => t.failureDetectors),
      top_warn_detector_id: mostFrequent(c.trials, (t) => t.warnDetectors),
      stop_after_note: stopAfterNote(c, input),
      resumed: n > 0 && c.trials.every((t) => t.resumed),
      confound: tag,
      step_time_ratio: ratio,
      trial_paths: c.trials.map((t) => `${c.plan.name}/trial_${t.trial}/result.json`),
      directory: `${c.plan.name}/`,
      vs_baseline: vs,
    };
  });
  return {
    schema_version: MATRIX_SCHEMA_VERSION,
    workload: 'subprocess',
    ticket: input.ticket,
    run_id: input.runId,
    argv: [...input.argv],
    trials_per_cell: input.trialsPerCell,
    steps_per_trial: 1,
    run_timestamp: input.writtenAt.toISOString(),
    complete: input.complete,
    stop_after:
      input.stopAfter === null
        ? null
        : {
            events: input.stopAfter.events,
            max_trials: input.stopAfter.maxTrials,
            event_verdict: input.stopAfter.eventVerdict,
          },
    baseline_cell: baseline?.plan.name ?? input.confound.baselineCell,
    confound: { threshold: input.confound.threshold, baseline_cell_configured: input.confound.baselineCell },
    warnings,
    recipe_source: { path: input.recipeSource.path, sha256: input.recipeSource.sha256 },
    aorta_probe_version: input.version,
    cells,
  };
}

function count(plan: MatrixPlanCell, trials: MatrixTrial[]): Counted {
  trials.sort((a, b) => a.trial - b.trial);
  let pass = 0;
  let fail = 0;
  let error = 0;
  let wall = 0;
  let stepMs = 0;
  for (const t of trials) {
    if (t.verdict === 'pass') pass++;
    else if (t.verdict === 'fail') fail++;
    else error++;
    wall += t.walltimeSec;
    // Per trial, as the original's `wall_clock_total` step time (wall clock / steps, steps = 1, in ms).
    stepMs += t.walltimeSec * 1000;
  }
  const n = trials.length;
  return {
    plan,
    trials,
    pass,
    fail,
    error,
    failureRate: pass + fail === 0 ? null : fail / (pass + fail),
    meanWallSec: n === 0 ? null : wall / n,
    meanStepMs: n === 0 ? null : stepMs / n,
  };
}

function resolveBaseline(cells: readonly Counted[], input: MatrixInput, warnings: string[]): Counted | null {
  const configured = input.confound.baselineCell;
  if (configured !== null) {
    const c = cells.find((x) => x.plan.name === configured);
    if (c === undefined) {
      warnings.push(`configured baseline cell '${configured}' is not a cell of this sweep; every confound is n/a`);
      return null;
    }
    if (c.trials.length === 0) {
      warnings.push(
        input.complete
          ? `configured baseline cell '${configured}' did not run; every confound is n/a`
          : `configured baseline cell '${configured}' has no finished trial yet; every confound is n/a for now`,
      );
      return null;
    }
    return c;
  }
  const ran = cells.filter((c) => c.trials.length > 0);
  const picked =
    ran.find((c) => c.plan.name.startsWith('baseline-')) ??
    ran.find((c) => c.plan.mitigations.every((m) => m === 'none')) ??
    (ran.length === 1 ? ran[0] : undefined);
  if (picked !== undefined) return picked;
  if (ran.length > 1 || input.complete)
    warnings.push(
      "cannot resolve baseline cell: no cell that ran is named 'baseline-*' or has only 'none' mitigations; set confound.baseline_cell in the recipe. Every confound is n/a",
    );
  return null;
}

function confoundOf(
  c: Counted,
  baseline: Counted | null,
  usable: boolean,
  threshold: number,
): { tag: ConfoundTag; ratio: number | null } {
  if (c.trials.length > 0 && c.failureRate === null) return { tag: 'error', ratio: null };
  if (c.trials.length === 0) return { tag: 'did_not_run', ratio: null };
  if (c === baseline) return { tag: '(baseline)', ratio: 1 };
  if (!usable || c.meanStepMs === null || !(c.meanStepMs > 0)) return { tag: 'n/a', ratio: null };
  const base = baseline!;
  const ratio = c.meanStepMs / base.meanStepMs!;
  if (ratio > threshold) return { tag: `speed (+${roundHalfEven((ratio - 1) * 100)}%)`, ratio };
  if (c.failureRate! >= base.failureRate!) return { tag: 'no effect', ratio };
  return { tag: '-', ratio };
}

/** The id that fired in the most trials (once per trial); ties go to the one seen first, as `Counter.most_common`. */
function mostFrequent(trials: readonly MatrixTrial[], ids: (t: MatrixTrial) => readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const t of trials) for (const id of new Set(ids(t))) counts.set(id, (counts.get(id) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = 0;
  for (const [id, n] of counts)
    if (n > bestCount) {
      best = id;
      bestCount = n;
    }
  return best;
}

/** The original's `Stop after` note: `stopped early: 3 fail event(s) in 24 trial(s)` / `cap reached: …`. */
function stopAfterNote(c: Counted, input: MatrixInput): string | null {
  const rule = input.stopAfter;
  if (rule === null || c.trials.length === 0) return null;
  const events = c.trials.filter((t) => t.verdict === rule.eventVerdict).length;
  const tail = `${events} ${rule.eventVerdict} event(s) in ${c.trials.length} trial(s)`;
  if (input.stoppedCells.has(c.plan.name)) return `stopped early: ${tail}`;
  if (c.trials.length >= rule.maxTrials) return `cap reached: ${tail}`;
  return null;
}
