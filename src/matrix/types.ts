/**
 * `matrix.json`: the sweep's answer, as the original (ROCm/aorta `triage/matrix.py`, `triage/confound.py`) writes it
 * for probe runs — per cell the failure rate, errors, the top detectors, the speed confound against a baseline cell —
 * plus ours: `vs_baseline`, whether the difference from the baseline is more than luck (stats.ts).
 *
 * Snake_case keys, as the file is read by the original's tools and by people; `schemas/matrix.schema.json` is its
 * schema. One fact in one place: sweep writes it (matrix.json, matrix.md, the summary), report renders it.
 */

export const MATRIX_SCHEMA_VERSION = 1;

/** A cell's failure rate against the baseline's (stats.ts `compareToBaseline` computes it). */
export interface VsBaseline {
  /** Cell rate − baseline rate; null when either has no pass or fail. */
  readonly difference: number | null;
  /** Newcombe's hybrid score interval of the difference, 95%. */
  readonly ci95: readonly [number, number] | null;
  /** Fisher's exact test, two-sided. */
  readonly p_value: number | null;
  /** `helps` / `hurts`: lower / higher rate with p < 0.05; else `no evidence`. */
  readonly effect: 'helps' | 'hurts' | 'no evidence';
  /** For `no evidence` with unequal rates: trials per cell that would detect them (power 0.8, α 0.05). */
  readonly trials_needed: number | null;
}

/** The original's `UNRELIABLE_ERROR_RATE_THRESHOLD`: a cell with errors in at least this share of its trials. */
export const UNRELIABLE_ERROR_RATE = 0.1;

/** The original's default `confound.threshold`: a mitigation more than 15% slower "works" by being slower. */
export const DEFAULT_CONFOUND_THRESHOLD = 1.15;

/**
 * The original's per-cell confound tag: `error` (the cell errored), `did_not_run`, `(baseline)`, `n/a` (no usable
 * baseline or timing), `speed (+N%)` (slower than the threshold allows), `no effect` (failure rate not lower), `-`
 * (lower failure rate without a speed cost).
 */
export type ConfoundTag = string;

export interface MatrixCell {
  readonly name: string;
  /** `[mitigation, diagnostic]` as written in the axes. */
  readonly mitigations: readonly [string, string];
  /** The cell's environment (the two bundles merged). */
  readonly resolved_env_vars: Readonly<Record<string, string>>;
  /** Finished trials of this run (final attempts), pass + fail + error. */
  readonly trials: number;
  readonly passed_count: number;
  readonly failed_count: number;
  readonly error_count: number;
  /** Trials the plan had for the cell that have not finished (interrupted, stopped early, not yet run). */
  readonly not_run_count: number;
  /** `fail / (pass + fail)`: errors excluded (the original's issue #230); null with no pass or fail. */
  readonly failure_rate: number | null;
  /** `error / trials`; null with no trials. */
  readonly error_rate: number | null;
  /** Errors in at least `UNRELIABLE_ERROR_RATE` of the trials. */
  readonly is_unreliable: boolean;
  /** Mean wall-clock seconds per finished trial (the probe runs' step time); null with no trials. */
  readonly mean_wall_clock_sec: number | null;
  /** `mean_wall_clock_sec` in ms (the original's field; `step_time_source` says where it came from). */
  readonly mean_step_time_ms: number | null;
  /** `wall_clock_total` (a probe trial is one step), or `missing` with no trials. */
  readonly step_time_source: 'wall_clock_total' | 'missing';
  /** The failure detector id that fired in the most trials (ties: the first seen, as `Counter.most_common`); null when none. */
  readonly top_failure_detector_id: string | null;
  /** The same for warnings. */
  readonly top_warn_detector_id: string | null;
  /** `stopped early: 3 fail event(s) in 24 trial(s)` / `cap reached: …`; null without `stop_after`. */
  readonly stop_after_note: string | null;
  /** Every finished trial of the cell was kept from an earlier invocation of this run (resume). */
  readonly resumed: boolean;
  readonly confound: ConfoundTag;
  /** `mean_step_time_ms / baseline's`; null when not computed. */
  readonly step_time_ratio: number | null;
  /** Relative to the run directory, in trial order: `<cell>/trial_<n>/result.json`. */
  readonly trial_paths: readonly string[];
  /** The cell's directory relative to the run directory, with a trailing slash (`none-none/`). */
  readonly directory: string;
  /** Against the baseline cell; null for the baseline itself and when there is no baseline. */
  readonly vs_baseline: VsBaseline | null;
}

export interface MatrixJson {
  readonly schema_version: typeof MATRIX_SCHEMA_VERSION;
  /** The original writes the workload's name; a probe run's is `subprocess`. */
  readonly workload: 'subprocess';
  readonly ticket: string;
  /** The run's id (run.json): the records it counted carry it. */
  readonly run_id: string;
  /** The trial command. */
  readonly argv: readonly string[];
  /** `stop_after.max_trials` when set, else `trials`. */
  readonly trials_per_cell: number;
  readonly steps_per_trial: 1;
  /** When this file was written (UTC, ISO 8601). */
  readonly run_timestamp: string;
  /** False while the sweep runs or when it was interrupted: the cells' counts are those finished so far. */
  readonly complete: boolean;
  readonly stop_after: { readonly events: number; readonly max_trials: number; readonly event_verdict: string } | null;
  /** The baseline cell's name, or null when none could be resolved. */
  readonly baseline_cell: string | null;
  readonly confound: { readonly threshold: number; readonly baseline_cell_configured: string | null };
  /** The `> [!WARNING]` lines of matrix.md (an unusable baseline, …). */
  readonly warnings: readonly string[];
  readonly recipe_source: { readonly path: string; readonly sha256: string };
  readonly aorta_probe_version: string;
  readonly cells: readonly MatrixCell[];
}
