/**
 * A sweep's plan: the recipe, its sweep keys, the cells, and the numbered (cell, trial) tasks that a local
 * sweep runs and a Slurm array or Kubernetes Indexed Job indexes (task i ↔ one cell's one trial).
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { loadRecipe, RecipeError, type Recipe, type StopAfter } from '../recipe/index.js';
import { RecipeCellError, slug, synthesizeCells, UnknownMitigationError, type Cell } from './cells.js';
import { builtinRegistry } from '../recipe/mitigation-registry.js';
import { strRepr } from '../condition/repr.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';
import { closest } from '../text/suggest.js';
import { parseMitigationsFile, readSweepConfig, type SweepConfig } from './config.js';

/** The most trials one sweep plans (cells x trials per cell). */
export const MAX_SWEEP_TASKS = 100_000;

/** A plan over `MAX_SWEEP_TASKS`: refused before any task is built. */
export class PlanTooLargeError extends RangeError {
  override name = 'PlanTooLargeError';
}

/** `--stop-after-events` / `--max-trials` that leave a target with no cap (or a cap with no target): refused. */
export class StopAfterOverlayError extends RangeError {
  override name = 'StopAfterOverlayError';
}

/** How a trial receives its cell's variables (upstream-probe-runs.md §3.6): `file` adds `<trial_dir>/probe.env`. */
export type EnvPassthroughMode = 'inherit' | 'file';

/** The original's ticket directory when none is given. */
export const NO_TICKET = '_no_ticket_';

export interface SweepTask {
  /** 0-based position in the plan: the Slurm array index / Kubernetes completion index. */
  readonly index: number;
  readonly cell: Cell;
  /** 0-based trial number within the cell (`trial_<n>`). */
  readonly trial: number;
}

export interface SweepPlan {
  readonly recipe: Recipe;
  /** The recipe file as given (the cluster scripts run the same file). */
  readonly recipePath: string;
  /** The recipe's sweep keys; `stopAfter` is the recipe's with the CLI overlay (`PlanOptions`) over it. */
  readonly config: SweepConfig;
  /** The recipe's `env_passthrough_mode`, or `PlanOptions.envPassthroughMode` when given. */
  readonly envPassthroughMode: EnvPassthroughMode;
  readonly cells: readonly Cell[];
  readonly ticket: string;
  /** Trials each cell may run: `stop_after.max_trials` when set, else `trials`. */
  readonly trialsPerCell: number;
  /** Cell-major: every trial of the first cell, then the next cell's. */
  readonly tasks: readonly SweepTask[];
}

export interface PlanOptions {
  /** Replaces the recipe's `trials`. */
  readonly trials?: number;
  /** Replaces the recipe's `ticket`. */
  readonly ticket?: string;
  /** `--mitigations-file` paths: their names join the registry (a name defined twice is an error). */
  readonly mitigationsFiles?: readonly string[];
  /**
   * `--stop-after-events K` / `--max-trials N`: each replaces its half of the recipe's `stop_after` (events,
   * max_trials); `event_verdict` stays the recipe's (default `fail`). A target with no cap, or a cap with no
   * target, is a `StopAfterOverlayError`.
   */
  readonly stopAfterEvents?: number;
  readonly maxTrials?: number;
  /** `--env-passthrough-mode`: replaces the recipe's `env_passthrough_mode`. */
  readonly envPassthroughMode?: EnvPassthroughMode;
}

/** `loadSweepPlan`'s option keys (text/options.ts). */
export const PLAN_OPTION_KEYS = {
  trials: OPTION,
  ticket: OPTION,
  mitigationsFiles: OPTION,
  stopAfterEvents: OPTION,
  maxTrials: OPTION,
  envPassthroughMode: OPTION,
} satisfies OptionTable<PlanOptions>;

/** The recipe's `stop_after` with the CLI's halves over it (upstream-probe-runs.md §3.4). */
function overlayStopAfter(recipe: StopAfter | null, options: PlanOptions): StopAfter | null {
  if (options.stopAfterEvents === undefined && options.maxTrials === undefined) return recipe;
  const events = options.stopAfterEvents ?? recipe?.events;
  const maxTrials = options.maxTrials ?? recipe?.maxTrials;
  if (maxTrials === undefined)
    throw new StopAfterOverlayError(
      `--stop-after-events ${events} needs a cap: give --max-trials N (or stop_after.max_trials in the recipe), the most trials a cell runs before it stops without ${events} events`,
    );
  if (events === undefined)
    throw new StopAfterOverlayError(
      `--max-trials ${maxTrials} caps stop_after, and the recipe has no stop_after.events: give --stop-after-events K too, or use --trials ${maxTrials} for a fixed number of trials per cell`,
    );
  return { events, maxTrials, eventVerdict: recipe?.eventVerdict ?? 'fail' };
}

/** Reads and checks everything a sweep needs before the first trial; every problem is a `RecipeError` at its file:line:col. */
export async function loadSweepPlan(recipePath: string, options: PlanOptions = {}): Promise<SweepPlan> {
  checkOptions('loadSweepPlan', options, PLAN_OPTION_KEYS);
  // The registry first: the recipe's axis values are checked against it when the recipe loads.
  const registry = builtinRegistry();
  // Each file is kept as the run's `sidecars/<basename>` and named `sidecar:<basename>`: two of one name would clash.
  const byName = new Map<string, string>();
  for (const f of options.mitigationsFiles ?? []) {
    const fileText = await readFile(f, 'utf8');
    const prior = byName.get(basename(f));
    if (prior !== undefined) {
      throw new RecipeError(
        `--mitigations-file: ${strRepr(prior)} and ${strRepr(f)} have the same file name ${strRepr(basename(f))} (the run keeps each as sidecars/<file name>): rename one`,
        f,
        { line: 1, col: 1, endCol: 2 },
        fileText,
      );
    }
    byName.set(basename(f), f);
    parseMitigationsFile(fileText, f, registry);
  }
  const bytes = await readFile(recipePath);
  const recipe = loadRecipe(bytes, recipePath, { mitigations: registry });
  const text = bytes.toString('utf8');
  if (recipe.mode !== 'probe' || recipe.bare) {
    throw new RecipeError(
      "recipe: a sweep needs a 'mode: probe' recipe (trials, mitigation_axis, diagnostic_axis)",
      recipePath,
      { line: 1, col: 1, endCol: 2 },
      text,
    );
  }
  const recipeConfig = readSweepConfig(recipe, registry);
  const config: SweepConfig = { ...recipeConfig, stopAfter: overlayStopAfter(recipeConfig.stopAfter, options) };
  let cells: Cell[];
  try {
    cells = synthesizeCells(recipe.mitigationAxis, recipe.diagnosticAxis, config.mitigations);
  } catch (err) {
    if (!(err instanceof UnknownMitigationError || err instanceof RecipeCellError)) throw err;
    const pos = recipe.axisPositions[err.axis][err.index] ?? { line: 1, col: 1, endCol: 2 };
    throw new RecipeError(err.message, recipePath, pos, text);
  }
  const baseline = recipe.confound.baselineCell;
  if (baseline !== null && !cells.some((c) => c.name === baseline)) {
    throw new RecipeError(
      `recipe.confound.baseline_cell: ${strRepr(baseline)} is not a cell of this sweep; cells: [${cells.map((c) => strRepr(c.name)).join(', ')}]`,
      recipePath,
      recipe.confound.baselineCellPos ?? { line: 1, col: 1, endCol: 2 },
      text,
      closest(
        baseline,
        cells.map((c) => c.name),
      ),
    );
  }
  const trials = options.trials ?? recipe.trials ?? 1;
  const trialsPerCell = config.stopAfter?.maxTrials ?? trials;
  // Checked before a task exists: `trials: 1000000000` once built a billion task objects (4.3 GB) for a dry run.
  if (cells.length * trialsPerCell > MAX_SWEEP_TASKS) {
    const from =
      config.stopAfter !== null
        ? options.maxTrials !== undefined
          ? '--max-trials'
          : "the recipe's stop_after.max_trials"
        : options.trials !== undefined
          ? '--trials'
          : "the recipe's 'trials'";
    throw new PlanTooLargeError(
      `${cells.length} cells x ${trialsPerCell} trials = ${cells.length * trialsPerCell} trials is more than a sweep runs (at most ${MAX_SWEEP_TASKS}, where Kubernetes starts warning about an Indexed Job's completions); lower ${from}, or split the axes over several sweeps`,
    );
  }
  const tasks: SweepTask[] = [];
  for (const cell of cells) for (let t = 0; t < trialsPerCell; t++) tasks.push({ index: tasks.length, cell, trial: t });
  return {
    recipe,
    recipePath,
    config,
    envPassthroughMode: options.envPassthroughMode ?? recipe.envPassthroughMode,
    cells,
    ticket: options.ticket ?? recipe.ticket ?? NO_TICKET,
    trialsPerCell,
    tasks,
  };
}

/** `<out>/<slug(ticket)>/<cell>/trial_<n>` (the original's `workloads/_subprocess.py`, ROCm/aorta). */
export function trialDir(outDir: string, ticket: string, cell: string, trial: number): string {
  return join(outDir, slug(ticket), cell, `trial_${trial}`);
}
